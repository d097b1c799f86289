"""A serving process settles its heap once started: start-up's objects frozen out of the
collector's scans, young collections rarer (agent.api.heap). Run in a child process, so this
test process keeps CPython's defaults."""

from __future__ import annotations

import subprocess
import sys

from agent.api.heap import YOUNG_THRESHOLD


def test_settle_heap_freezes_start_up_and_raises_the_young_threshold() -> None:
    code = (
        "import gc; from agent.api.heap import settle_heap; before = gc.get_freeze_count(); "
        "settle_heap(); print(before, gc.get_freeze_count(), gc.get_threshold()[0])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    before, frozen, young = (int(x) for x in done.stdout.split())
    assert before == 0 and frozen > 1_000 and young == YOUNG_THRESHOLD
