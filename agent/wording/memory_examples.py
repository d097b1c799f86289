"""Where the offline model's memory finds verified questions, for every path that builds the model.

The API serving claimants, the release check on the command line and `dev-modes` all build the
model through `served_model`, so a check scores the model the runtime serves (with its memory),
not the titles-only one. Each figure on evidence is still scored with the question left out of
the memory (agent.models.memory.leaving_out, around each turn of a check).
"""

from __future__ import annotations

import logging

from pydantic_ai.models import Model
from sqlalchemy.orm import sessionmaker

from agent.answering.evidence import verified_examples
from agent.answering.examples import Example, ExampleSource
from agent.models.memory import Memories
from agent.models.selection import OFFLINE, build_model
from agent.settings import Settings
from agent.wording.inventory_examples import inventory_source

log = logging.getLogger(__name__)


def examples(settings: Settings, sessions: sessionmaker | None) -> ExampleSource | None:
    """The evidence store (staff answers, inventories loaded into it) and the policy owner's
    inventory shipped with the corpus (its dev part). A question in both counts once, the store's
    row first. Without a database (`sessions` None) the shipped inventory alone. With neither, the
    memory is empty and the offline model drafts every answer for staff: nothing backs it."""
    if settings.offline_memory == "off":
        return None
    try:
        shipped = inventory_source()
    except (OSError, ValueError) as exc:
        log.warning("evidence memory: no inventory examples (%s); the evidence store alone", exc)
        shipped = None

    def source(family: str, version: str) -> list[Example]:
        found: list[Example] = []
        if sessions is not None:
            with sessions() as session:
                found = verified_examples(session, family, version)
        keys = {e.key for e in found}
        return found + [e for e in (shipped(family, version) if shipped else ()) if e.key not in keys]

    return source


def runtime_memory(settings: Settings, sessions: sessionmaker | None) -> Memories | None:
    """The memory of verified questions the runtime keeps, whatever the model: the serving gate's
    near rule reads it, and the offline model chooses with it. Built once per process."""
    source = examples(settings, sessions)
    return Memories(source, settings.offline_memory) if source is not None else None


def served_model(
    settings: Settings, sessions: sessionmaker | None, memories: Memories | None = None
) -> Model:
    """The model claimants are served by; the offline model reads `memories` (built here when
    not given)."""
    if settings.model != OFFLINE:
        return build_model(settings)
    return build_model(settings, memories=memories or runtime_memory(settings, sessions))


__all__ = ["examples", "runtime_memory", "served_model"]
