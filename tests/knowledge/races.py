"""A rival writer forced between one writer's read of the manifest and its write."""

from __future__ import annotations

from collections.abc import Callable

from knowledge.manifest import MANIFEST_KEY
from knowledge.store import ObjectStore


def rival_before_manifest_write(monkeypatch, store: ObjectStore, rival: Callable[[], None], times: int = 1):
    """Run `rival` (another writer, whole) just before the next `times` manifest writes of `store`
    reach the store: the window in which the old read-compare-put lost one of the two."""
    put = store.put
    left, inside = [times], [False]

    def paused(key, data, *args, **kwargs):
        if key == MANIFEST_KEY and left[0] > 0 and not inside[0]:  # the rival's own write goes through
            left[0] -= 1
            inside[0] = True
            try:
                rival()
            finally:
                inside[0] = False
        return put(key, data, *args, **kwargs)

    monkeypatch.setattr(store, "put", paused)
