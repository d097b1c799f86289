"""A policy owner's review of an import: what must be decided, what was decided, and the
draft written from it.

What must be decided is read from the import report: each part's drafted titles and applies
lines (accepted together after reading them, or edited one by one), each unit that needs a
look of its own (a fragment, a unit an amendment changed, a part of a split unit, a unit a
failure names), each row of the cover matrix, and the removals. Decisions are kept in a JSON
file beside the draft (`…md.review.json`), so a review can stop and go on.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from knowledge.errors import KnowledgeError, ValidationFailed
from knowledge.importing.titles import MAX_TITLE
from knowledge.rules import KINDS, check_sources
from knowledge.source import APPLIES, HEADING, ID_NUMBER, parse_wording


class ReviewRefused(KnowledgeError):
    """An edit the draft cannot take (a title too long, an applies line that does not parse)."""


# A typo fix changes a few words; more is a reading the import got wrong (text out of order or
# missing), which is the import's failure to mend, not the owner's.
TYPO_WORDS = 3  # changed words allowed in any unit, and per 100 words beyond 150
ID_PARTS = re.compile(rf"^(?P<code>[A-Z]{{3}})-(?P<kind>[A-Z]{{3}})-(?P<number>{ID_NUMBER})$")  # CLAUSE_ID


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

    def decision_key(self, unit_id: str) -> str:
        """The decision a flagged unit is part of: the parts of a unit cut by length are one
        decision, and so are the fragments of one part (shown together on its page, each with its
        text, accepted together); any other unit is its own."""
        return self._decision_keys().get(unit_id, f"unit:{unit_id}")

    def _decision_keys(self) -> dict[str, str]:
        fragments = {f["id"] for f in self.report.get("fragments", [])}
        keys: dict[str, str] = {}
        first_part = ""
        for u in self.report["units"]:
            if u.get("split"):
                first_part = u["id"] if u["split"].startswith("1 of") else first_part or u["id"]
                keys[u["id"]] = f"split:{first_part}"
            elif u["id"] in fragments:
                keys[u["id"]] = f"fragments:{part_of(u)}"
        return keys

    def group_of(self, unit_id: str) -> list[str]:
        """The flagged units decided together with this one, in order."""
        keys = self._decision_keys()
        key = keys.get(unit_id, f"unit:{unit_id}")
        return [u for u in self.flagged() if keys.get(u, f"unit:{u}") == key]

    def required(self) -> list[str]:
        keys = [f"part:{p}" for p in self.parts()]
        keys += list(dict.fromkeys(self.decision_key(i) for i in self.flagged()))
        keys += [f"matrix:{r}" for r in self.report.get("matrix", {}).get("rows", [])]
        # each table row the import could not read: added in the matrix, or noted as not a row
        keys += [f"unread:{n}" for n, _ in enumerate(self.report.get("matrix", {}).get("unread", []))]
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

    def body_of(self, unit_id: str) -> str:
        """A unit's text as the draft holds it: the lines after its heading and applies line."""
        lines = self.draft.read_text(encoding="utf-8").splitlines()
        start = next(
            (n for n, line in enumerate(lines) if (h := HEADING.match(line)) and h["id"] == unit_id), None
        )
        if start is None:
            raise ReviewRefused(f"no unit {unit_id} in {self.draft}")
        n = start + 1
        if n < len(lines) and APPLIES.match(lines[n].strip()):
            n += 1
        return "\n".join(lines[n : _body_end(lines, n)]).strip("\n")

    def edit_text(self, unit_id: str, text: str) -> None:
        """A typo corrected where the page image shows otherwise, kept beside what was read."""
        was = self.body_of(unit_id)
        now = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")
        edits = self.decisions.setdefault("text_edits", {})
        if now == was:
            edits.pop(unit_id, None)
            self.save()
            return
        old, new = was.split(), now.split()
        changed = sum(
            max(i2 - i1, j2 - j1)
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
            if tag != "equal"
        )
        allowed = TYPO_WORDS + max(len(old) - 150, 0) * TYPO_WORDS // 100
        if changed > allowed:
            raise ReviewRefused(
                f"{unit_id}: that changes {changed} words; the page corrects typos (at most {allowed} "
                "words here). Text out of order, missing or from another column is an import "
                "failure: import again, or send the file to the maintainers"
            )
        edits[unit_id] = {"from": was, "to": now, "at": datetime.now(UTC).isoformat(timespec="seconds")}
        self.save()

    def change_kind(self, unit_id: str, kind: str) -> None:
        """The unit's kind (its ID's middle part): a new ID of that kind when the draft is written."""
        parts = ID_PARTS.match(unit_id)
        if parts is None:
            raise ReviewRefused(f"{unit_id}: not an ID of the form CODE-KIND-NN")
        if kind not in KINDS:
            raise ReviewRefused(f"{unit_id}: the kind is one of {', '.join(KINDS)}")
        kinds = self.decisions.setdefault("kinds", {})
        if kind == parts["kind"]:
            kinds.pop(unit_id, None)
        else:
            kinds[unit_id] = kind
        self.save()

    def renamed_ids(self, text: str) -> dict[str, str]:
        """Each unit whose kind the owner changed -> its new ID: the next free number of that kind."""
        used = {h["id"] for line in text.splitlines() if (h := HEADING.match(line))}
        found: dict[str, str] = {}
        for unit_id, kind in sorted(self.decisions.get("kinds", {}).items()):
            parts = ID_PARTS.match(unit_id)
            if parts is None or unit_id not in used:
                continue
            width, n = len(parts["number"]), 1
            while (new := f"{parts['code']}-{kind}-{n:0{width}d}") in used:
                n += 1
            used.add(new)
            found[unit_id] = new
        return found

    # ------------------------------------------------------------ the cover matrix, as the owner reads it

    def levels(self) -> list[str]:
        return list(self.report.get("matrix", {}).get("levels", []))

    def level_names(self) -> dict[str, str]:
        """Drafted level name -> the owner's name for it (renamed or as drafted)."""
        renamed = self.decisions.get("levels", {})
        return {lv: renamed.get(lv, lv) for lv in self.levels()}

    def rename_level(self, old: str, new: str) -> None:
        new = " ".join(new.split())
        if old not in self.levels():
            raise ReviewRefused(f"no cover level {old!r} in the matrix (levels: {', '.join(self.levels())})")
        if not new or "|" in new or "-->" in new or len(new) > 80:
            raise ReviewRefused(f"a level's name is 1 to 80 characters without '|' (got {new!r})")
        self.decisions.setdefault("levels", {})[old] = new
        self.save()

    def matrix_rows(self) -> list[dict]:
        """The rows as the owner has them: each drafted row (edited or deleted) and the rows added;
        each with its name, kind, cells (level -> value), the units it redrafts."""
        m = self.report.get("matrix", {})
        edits = self.decisions.get("matrix_edits", {})
        cells = {(c["row"], c["column"]): c["value"] for c in m.get("cells", [])}
        rows = []
        for n, row in enumerate(m.get("rows", [])):
            edit = edits.get(row, {})
            rows.append(
                {
                    "index": n,
                    "row": row,
                    "name": edit.get("name", row),
                    "kind": edit.get("kind", m.get("kinds", {}).get(row, "")),
                    "cells": edit.get("cells", {lv: cells.get((row, lv), "") for lv in self.levels()}),
                    "units": edit.get("units", m.get("reached", {}).get(row, [])),
                    "edited": bool(edit) and not edit.get("deleted"),
                    "deleted": bool(edit.get("deleted")),
                    "added": False,
                }
            )
        for n, added in enumerate(self.decisions.get("matrix_added", [])):
            rows.append(
                {
                    **added,
                    "index": f"added-{n}",
                    "row": added["name"],
                    "edited": True,
                    "deleted": False,
                    "added": True,
                }
            )
        return rows

    def _row_fields(self, name: str, kind: str, cells: dict[str, str], units: str | list[str]) -> dict:
        name = " ".join(name.split())
        if not name:
            raise ReviewRefused("a row needs its name as the table prints it")
        values = {"included", "not included", "optional", "limited", ""}
        bad = {lv: v for lv, v in cells.items() if v not in values or lv not in self.levels()}
        if bad:
            raise ReviewRefused(f"{name}: a cell is included, not included, optional or limited (got {bad})")
        if kind not in ("cover", "liability", "option", "exclusion", "excess", ""):
            raise ReviewRefused(
                f"{name}: a row is cover, liability, option, exclusion or excess (got {kind!r})"
            )
        known = {u["id"] for u in self.report["units"]}
        listed = [u for u in (units.replace(",", " ").split() if isinstance(units, str) else units)]
        unknown = [u for u in listed if u not in known]
        if unknown:
            raise ReviewRefused(f"{name}: no unit {', '.join(unknown)} in this draft")
        return {"name": name, "kind": kind, "cells": cells, "units": listed}

    def edit_row(
        self, index: int, name: str, kind: str, cells: dict[str, str], units: str | list[str]
    ) -> None:
        rows = self.report.get("matrix", {}).get("rows", [])
        if not 0 <= index < len(rows):
            raise ReviewRefused(f"no matrix row {index}")
        self.decisions.setdefault("matrix_edits", {})[rows[index]] = self._row_fields(
            name, kind, cells, units
        )
        self.decide(f"matrix:{rows[index]}", decision="edited")

    def delete_row(self, index: int) -> None:
        rows = self.report.get("matrix", {}).get("rows", [])
        if not 0 <= index < len(rows):
            raise ReviewRefused(f"no matrix row {index}")
        self.decisions.setdefault("matrix_edits", {})[rows[index]] = {"deleted": True}
        self.decide(f"matrix:{rows[index]}", decision="deleted")

    def add_row(self, name: str, kind: str, cells: dict[str, str], units: str) -> None:
        """A row the import could not read, added as printed, with the units it applies to."""
        self.decisions.setdefault("matrix_added", []).append(self._row_fields(name, kind, cells, units))
        self.save()

    def _matrix_applies(self) -> dict[str, dict[str, list[str]]]:
        """Unit ID -> plans and added_by from the owner's edited and added rows."""
        names = self.level_names()
        out: dict[str, dict[str, list[str]]] = {}
        for row in self.matrix_rows():
            if not row["edited"] or row["kind"] == "exclusion":
                continue
            levels = [lv for lv in self.levels() if row["cells"].get(lv)]
            if not levels:
                continue
            keep = [lv for lv in levels if row["cells"][lv] != "not included"]
            if not keep:
                continue
            fields: dict[str, list[str]] = {}
            if keep != self.levels():
                fields["plans"] = [names[lv] for lv in keep]
            if all(row["cells"][lv] == "optional" for lv in keep):
                fields["added_by"] = [re.sub(r"[^a-z0-9]+", "_", row["name"].lower()).strip("_")]
            for unit in row["units"]:
                out[unit] = fields
        return out

    def estimate(self) -> dict[str, float]:
        """Open decisions and the review's reading time as the project reckons it: words / 200
        plus 10 s a decision (the words of the titles, applies lines, flagged units and rows)."""
        done, total = self.progress()
        flagged = self.flagged()
        words = sum(len(re.findall(r"\w+", u["title"])) for u in self.report["units"])
        words += sum(len(re.findall(r"\w+", u["text"])) for u in self.report["units"] if u["id"] in flagged)
        words += sum(len(re.findall(r"\w+", r)) for r in self.report.get("matrix", {}).get("rows", []))
        return {
            "open": total - done,
            "decisions": total,
            "words": words,
            "minutes": round(words / 200 + total / 6, 1),
        }

    def save(self) -> None:
        self.state_path.write_text(json.dumps(self.decisions, indent=1), encoding="utf-8")

    # ------------------------------------------------------------ the draft from the review

    def written(self) -> str:
        """The draft with the owner's edits (their own titles and applies lines, typos corrected,
        kinds changed, the matrix rows they edited or added, the levels they renamed), and without
        its review line once every decision is made and no failure is left."""
        edits = self.decisions.get("edits", {})
        mended = self.decisions.get("text_edits", {})
        from_rows = self._matrix_applies()
        names = {old: new for old, new in self.level_names().items() if old != new}
        lines = self.draft.read_text(encoding="utf-8").splitlines()
        out: list[str] = []
        n = 0
        while n < len(lines):
            line = lines[n]
            n += 1
            if line.startswith("plans: ") and names:
                line = "plans: " + " | ".join(names.get(p, p) for p in line[7:].split(" | "))
            heading = HEADING.match(line)
            if not heading:
                out.append(line)
                continue
            cid = heading["id"]
            has_applies = n < len(lines) and APPLIES.match(lines[n].strip())
            drafted = lines[n] if has_applies else "<!-- applies: -->"
            if has_applies:
                n += 1  # replaced below
            if cid in edits:
                out.append(f"## {cid} - {edits[cid]['title']}")
                applies = edits[cid]["applies"]
            else:
                out.append(line)
                applies = _applies(drafted, from_rows.get(cid), names)
            if applies:
                out.append(applies)
            if cid in mended:
                end = _body_end(lines, n)
                if "\n".join(lines[n:end]).strip("\n") == mended[cid]["from"]:  # the draft as edited
                    out += ["", *mended[cid]["to"].split("\n"), ""]
                    n = end
        text = "\n".join(out) + "\n"
        for old, new in self.renamed_ids(text).items():  # a kind changed: the ID everywhere it is named
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
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


def _applies(line: str, from_row: dict[str, list[str]] | None, names: dict[str, str]) -> str:
    """An applies line with a row's plans and added_by in place of the drafted ones and the
    owner's level names; "" when nothing is left in it."""
    body = APPLIES.match(line.strip())["body"]  # type: ignore[index]
    fields: dict[str, str] = {}
    for part in body.split(";"):
        if "=" in part:
            key, value = part.split("=", 1)
            fields[key.strip()] = value.strip()
    if "plans" in fields and names:
        fields["plans"] = "|".join(names.get(p.strip(), p.strip()) for p in fields["plans"].split("|"))
    if from_row is not None:
        fields.pop("plans", None)
        fields.pop("added_by", None)
        if from_row.get("plans"):
            fields = {"plans": "|".join(from_row["plans"]), **fields}
        if from_row.get("added_by"):
            fields["added_by"] = ",".join(from_row["added_by"])
    return f"<!-- applies: {'; '.join(f'{k}={v}' for k, v in fields.items())} -->" if fields else ""


def _body_end(lines: list[str], start: int) -> int:
    """Where a unit's body that starts at `start` ends: the next heading, or the draft's end."""
    return next((m for m in range(start, len(lines)) if HEADING.match(lines[m])), len(lines))


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
