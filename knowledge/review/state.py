"""A policy owner's review of an import: what must be decided, what was decided, and the
draft written from it.

What must be decided is read from the import report: each part's drafted titles and applies
lines (accepted together after reading them, or edited one by one), each unit that needs a
look of its own (a fragment, a unit an amendment changed, a part of a split unit, a unit a
failure names), each row of the cover matrix, and the removals. Decisions are kept in a JSON
file beside the draft (`…md.review.json`), so a review can stop and go on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from knowledge.errors import KnowledgeError, ValidationFailed
from knowledge.rules import check_sources
from knowledge.source import APPLIES, HEADING, parse_wording
from knowledge.titles import MAX_TITLE


class ReviewRefused(KnowledgeError):
    """An edit the draft cannot take (a title too long, an applies line that does not parse)."""


@dataclass
class Review:
    draft: Path
    report: dict
    decisions: dict[str, dict] = field(default_factory=dict)

    @property
    def state_path(self) -> Path:
        return self.draft.with_name(self.draft.name + ".review.json")

    @property
    def source(self) -> Path:
        return Path(self.report["file"])

    # ------------------------------------------------------------ what must be decided

    def parts(self) -> list[str]:
        return list(dict.fromkeys(part_of(u) for u in self.report["units"]))

    def units_of(self, part: str) -> list[dict]:
        return [u for u in self.report["units"] if part_of(u) == part]

    def flagged(self) -> dict[str, str]:
        """Unit ID -> why it needs a look of its own."""
        why: dict[str, str] = {}
        for f in self.report.get("fragments", []):
            why[f["id"]] = f"a fragment of {f['chars']} characters: a piece of a table or layout?"
        for a in self.report.get("amendments", []):
            if a.get("applied_to"):
                why.setdefault(a["applied_to"], f"changed by the supplement ({a['change']})")
        for u in self.report["units"]:
            if u.get("split"):
                why.setdefault(u["id"], f"part {u['split']} of a unit cut by length")
        return why

    def required(self) -> list[str]:
        keys = [f"part:{p}" for p in self.parts()]
        keys += [f"unit:{i}" for i in self.flagged()]
        keys += [f"matrix:{r}" for r in self.report.get("matrix", {}).get("rows", [])]
        keys.append("removals")
        return keys

    def progress(self) -> tuple[int, int]:
        required = self.required()
        return sum(1 for k in required if k in self.decisions), len(required)

    # ------------------------------------------------------------ deciding

    def decide(self, key: str, **what: str) -> None:
        if key not in self.required():
            raise ReviewRefused(f"{self.draft}: nothing to decide under {key!r}")
        self.decisions[key] = {"at": datetime.now(UTC).isoformat(timespec="seconds"), **what}
        self.save()

    def edit_unit(self, unit_id: str, title: str, applies: str) -> None:
        """The owner's own title and applies line for a unit (kept until the draft is written)."""
        title = " ".join(title.split())
        if len(title.split()) < 2 or len(title) > MAX_TITLE:
            raise ReviewRefused(
                f"{unit_id}: a title says what the clause covers in 2 words to {MAX_TITLE} characters"
            )
        applies = " ".join(applies.split())
        if applies and not APPLIES.match(applies):
            raise ReviewRefused(f"{unit_id}: an applies line reads <!-- applies: plans=…; added_by=… -->")
        edits = self.decisions.setdefault("edits", {})
        edits[unit_id] = {"title": title, "applies": applies}
        self.save()

    def save(self) -> None:
        self.state_path.write_text(json.dumps(self.decisions, indent=1), encoding="utf-8")

    # ------------------------------------------------------------ the draft from the review

    def written(self) -> str:
        """The draft with the owner's edits, and without its review line once every decision
        is made and no failure is left."""
        edits = self.decisions.get("edits", {})
        lines = self.draft.read_text(encoding="utf-8").splitlines()
        out: list[str] = []
        skip_applies = False
        for line in lines:
            heading = HEADING.match(line)
            if heading and heading["id"] in edits:
                edit = edits[heading["id"]]
                out.append(f"## {heading['id']} - {edit['title']}")
                if edit["applies"]:
                    out.append(edit["applies"])
                skip_applies = True
                continue
            if skip_applies and APPLIES.match(line.strip()):
                skip_applies = False
                continue
            skip_applies = False
            out.append(line)
        text = "\n".join(out) + "\n"
        done, total = self.progress()
        if done == total and not self.report.get("failures"):
            text = re.sub(r"(?m)^review:.*\n", "", text, count=1)
        return text

    def write(self) -> tuple[Path, str]:
        """Write the reviewed draft and validate it as `knowledge validate` does: (path, result)."""
        text = self.written()
        self.draft.write_text(text, encoding="utf-8")
        self.decisions["written"] = {"at": datetime.now(UTC).isoformat(timespec="seconds")}
        self.save()
        try:
            check_sources([parse_wording(self.draft, text)])
        except ValidationFailed as exc:
            return self.draft, f"does not validate yet:\n{exc}"
        return self.draft, "ok: the draft validates"


def part_of(unit: dict) -> str:
    path = unit.get("heading_path") or []
    return path[0] if path else "Introduction"


def open_review(draft: Path) -> Review:
    report_path = draft.with_suffix(".import.json")
    if not report_path.exists():
        raise ReviewRefused(
            f"{draft}: no import report beside it ({report_path.name}); import the wording first"
        )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    review = Review(draft, report)
    if review.state_path.exists():
        review.decisions = json.loads(review.state_path.read_text(encoding="utf-8"))
    return review
