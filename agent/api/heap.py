"""The collector's settings for a serving process, set once its start-up is done."""

from __future__ import annotations

import gc

# Container allocations between young collections (CPython's default is 700). A turn allocates
# tens of thousands (pydantic-ai's run, the ORM): at 700 the collector ran about once a
# millisecond of turn, 2 ms of CPU a turn in all; at 20,000 it runs a few times a second.
YOUNG_THRESHOLD = 20_000


def settle_heap() -> None:
    """What start-up imported and built (the modules, the agent, the ORM's mappers: about
    200,000 objects) lives as long as the process: frozen out of the collector's scans
    (gc.freeze, as pre-fork servers do), and young collections made rarer. Cyclic garbage is
    still collected, only less often."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
