"""The suite's budget (tests/budget.py) is a check that can fail, without timing anything: a
module that starts more than the limits allow fails at its end, naming what it started."""

from __future__ import annotations

import pytest

from tests.budget import LIMITS, Used
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # pytest run as processes


def test_used_over_the_limits_names_each_excess() -> None:
    assert Used(servers_started=LIMITS["servers started"]).over() == []
    over = Used(servers_started=3, corpus_loads=5).over()
    assert over == ["servers started 3 (limit 2)", "corpus loads 5 (limit 2)"]


def test_a_module_that_starts_too_many_servers_fails_at_its_end(pytester: pytest.Pytester) -> None:
    # The suite's own guard, from tests/conftest.py, in a run of two small modules.
    guard = "from tests.conftest import within_budget  # noqa: F401"
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(REPO)!r})\n{guard}\n")
    pytester.makepyfile(
        test_greedy="""
from tests import budget

def test_starts_three_servers():
    budget.USED.servers_started += 3

def test_after_it():
    pass
""",
        test_frugal="""
def test_starts_nothing():
    pass
""",
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*test_greedy is over the suite's budget: servers started 3 (limit 2)*"])
