"""Re-read every served quote from the store, independently of the turn's own check.

For each citation a claimant was served, the evaluation reads the clause object through
knowledge's store API, as the manifest records it now: the version entry of that family
and wording version, its directory by S3 object version, and the clause by the object
version the directory names. The quote must occur in that text (whitespace-normalised) and
the text must match the directory's SHA-256. A list item is served with its lead-in ("We do
not cover: …"), so a quote may also be one of the clause's composed units (agent.boundary.compose),
never anything else. Run after all turns, so a clause altered in the store after the run
started is caught.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent.boundary.units import units
from knowledge.clauses import Directory, clause_key
from knowledge.errors import KnowledgeError
from knowledge.manifest import Registry
from knowledge.store import ObjectStore


@dataclass(frozen=True)
class QuoteProblem:
    claim_id: str
    turn_id: str
    clause_id: str
    version: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


def _squash(text: str) -> str:
    return " ".join(text.split())


def audit_quotes(exchanges: Iterable[Any], store: ObjectStore) -> tuple[int, list[QuoteProblem]]:
    """(quotes re-read, problems) over every served citation of these exchanges."""
    manifest, _ = Registry(store).read()
    directories: dict[tuple[str, str], Directory] = {}
    texts: dict[tuple[str, str, str], str] = {}
    checked, problems = 0, []
    for exchange in exchanges:
        if exchange.status_code != 200:
            continue
        family = exchange.turn.get("family") or exchange.family
        for citation in exchange.reply.get("citations", []):
            clause_id = citation.get("clause_id", "")
            version = citation.get("version") or exchange.turn.get("version") or ""
            checked += 1

            def problem(detail: str, e: Any = exchange, cid: str = clause_id, v: str = version) -> None:
                problems.append(QuoteProblem(e.claim_id, e.reply.get("turn_id", ""), cid, v, detail))

            try:
                key = (family, version, clause_id)
                if key not in texts:
                    if (family, version) not in directories:
                        entry = manifest.entry(family, version)
                        data = store.get(entry.directory_key, entry.directory_object_version).data
                        directories[(family, version)] = Directory.from_json(data)
                    listed = directories[(family, version)].get(clause_id)
                    if listed is None:
                        problem(f"{clause_id} is not in the {family} {version} directory")
                        continue
                    obj = store.get(clause_key(family, version, clause_id), listed.object_version)
                    if hashlib.sha256(obj.data).hexdigest() != listed.sha256:
                        problem("stored clause does not match its directory hash")
                        continue
                    texts[key] = obj.data.decode("utf-8")
            except (KnowledgeError, KeyError, LookupError) as exc:
                problem(f"cannot re-read the clause from the store: {type(exc).__name__}: {exc}")
                continue
            quote = _squash(citation.get("quote", "")).strip("\"“”' ")
            composed = {_squash(u.text) for u in units(texts[key])}
            if not quote or (quote not in _squash(texts[key]) and quote not in composed):
                problem(f"quote not in the stored clause: {citation.get('quote', '')[:120]!r}")
    return checked, problems
