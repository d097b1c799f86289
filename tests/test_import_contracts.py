"""The import contracts in pyproject.toml hold for the code as it is, and they catch the
imports they forbid: a runtime module importing the evaluation tooling, knowledge importing
agent, the clause store importing the import of a wording, a cycle between modules."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
RUNTIME = "The runtime never imports agent.evaluation"
STORE = "The clause store never imports knowledge.importing"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120
    )


def copy_of_the_code(tmp_path: Path) -> Path:
    for name in ("agent", "knowledge"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_code_keeps_every_import_contract() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


def _modules(package: Path, dotted: str) -> set[str]:
    return {
        f"{dotted}.{p.stem}"
        for p in package.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem not in ("__init__", "__pycache__")
    }


def test_the_runtime_contract_names_every_module_but_the_tools_and_their_entry_point() -> None:
    """A module added to agent is runtime unless it is the evaluation tooling or the command line
    that starts it: the contract must list it, or it could import agent.evaluation unseen. The
    command line's own modules are runtime too (`python -m knowledge` is one of them), all but
    its evaluation commands."""
    contract = next(
        c
        for c in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
        if c["id"] == "runtime-without-evaluation"
    )
    named = set(contract["source_modules"])
    top = _modules(REPO / "agent", "agent") - {"agent.evaluation", "agent.cli", "agent.__main__"}
    assert {m for m in named if m.count(".") == 1} == top
    commands = _modules(REPO / "agent" / "cli", "agent.cli") - {"agent.cli.evaluation"}
    assert {m for m in named if m.startswith("agent.cli.")} == commands


def test_the_store_contract_names_every_module_of_knowledge_but_the_import() -> None:
    """A module added to knowledge is the clause store's unless it is the import or the command
    line's entry point: the contract must list it, or the store could import the import unseen."""
    contract = next(
        c
        for c in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
        if c["id"] == "store-without-importing"
    )
    store = _modules(REPO / "knowledge", "knowledge") - {"knowledge.importing", "knowledge.__main__"}
    assert set(contract["source_modules"]) == store


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("agent/boundary/replies.py", "import agent.evaluation.report", RUNTIME),
        ("agent/api/deps.py", "from agent.evaluation import harness", RUNTIME),
        ("knowledge/manifest.py", "import agent.settings", "knowledge never imports agent"),
        ("knowledge/clauses.py", "import knowledge.importing.extract", STORE),
        ("agent/settings.py", "import agent.turn.runner", "No import cycles"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, module: str, line: str, broken: str) -> None:
    root = copy_of_the_code(tmp_path)
    with (root / module).open("a", encoding="utf-8") as f:
        f.write(f"\n{line}  # noqa\n")
    result = lint_imports(root)
    assert result.returncode != 0
    assert any(broken in row and "BROKEN" in row for row in result.stdout.splitlines())
