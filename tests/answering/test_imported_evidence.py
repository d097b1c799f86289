"""An imported wording's inventory as evidence: its `sections` mapped onto the clause IDs the
import assigned, its synthetic claimants' cover levels and endorsements as the context."""

from __future__ import annotations

from sqlalchemy import select

from agent.answering import evidence
from agent.cli.evidence import labelled
from agent.db.tables import Evidence
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from tests.answering.support import QUESTIONS, db
from tests.conftest import AXA_FAMILY, AXA_VERSION

FAMILY, VERSION = AXA_FAMILY, AXA_VERSION


def test_an_imported_wordings_inventory_loads_with_its_clause_ids_and_claimants(
    axa_store, database_url
) -> None:
    library = ClauseLibrary(axa_store)
    manifest, _ = Registry(axa_store).read()
    directory = library.directory(manifest.entry(FAMILY, VERSION))
    read = labelled([QUESTIONS / "imported" / "axa_car.toml"], FAMILY, directory, library)
    rows = read.rows
    # Three questions name headings no drafted unit carries: left out, never stored as "route it".
    assert [u.split(" ")[0] for u in read.unmapped] == ["AXA-Q57", "AXA-Q71"]
    assert len(rows) == 86
    hashes = {e.clause_id: e.sha256 for e in directory.entries}
    with db(database_url) as session:
        done = evidence.load_inventory(session, FAMILY, VERSION, rows, hashes, by="tests")
        assert len(done.added) == len(rows) > 0
        q01 = session.scalar(select(Evidence).where(Evidence.family == FAMILY, Evidence.key == "AXA-Q01"))
        assert q01.clauses and all(directory.get(c) is not None for c in q01.clauses)
        assert q01.context["plan"] == "Comprehensive"
        assert "endorsement_11" in q01.context["endorsements"]
        assert set(q01.clause_hashes) == set(q01.clauses)
        again = evidence.load_inventory(session, FAMILY, VERSION, rows, hashes, by="tests")
    assert (again.added, again.updated, len(again.unchanged)) == ([], [], len(rows))
