"""Markdown (as extraction tools write it, a rule between pages) and HTML wordings as blocks."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from knowledge.importing.accounting import Ledger
from knowledge.importing.extract.blocks import Block, heading_block, row_block, text_block

# ---------------------------------------------------------------- Markdown (extraction tools' output)

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_MD_NOISE = re.compile(r"^(?:NO_CONTENT_HERE|!\[.*\]\(.*\)|<!--.*-->)$")


def _plain(text: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", text)
    text = re.sub(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("\\", "").strip()


def from_markdown(text: str, ledger: Ledger | None = None) -> list[Block]:
    ledger = ledger if ledger is not None else Ledger()
    blocks: list[Block] = []
    page = 1
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        ledger.read(page, line)
        if re.fullmatch(r"-{3,}|\*{3,}|_{3,}", line):
            ledger.remove("page-break-mark", page, line)
            page += 1  # the extraction tools mark page breaks with a rule
            continue
        if not line:
            continue
        if _MD_NOISE.match(line):
            ledger.remove("extraction-placeholder", page, line)
            continue
        if m := _MD_HEADING.match(line):
            heading = ledger.step("markdown-syntax", page, line, _plain(m[2]))
            heading = ledger.step("heading-punctuation", page, heading, heading.strip(" :"))
            if b := heading_block(heading, page, len(m[1]), None, ledger, number):
                blocks.append(b)
            continue
        if line.startswith("|"):
            cells = [_plain(c) for c in line.strip("|").split("|")]
            ledger.step("markdown-syntax", page, "".join(line.strip("|").split("|")), "".join(cells))
            ledger.remove("table-ruling", page, line.count("|"))
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                ledger.remove("table-ruling", page, "".join(cells))
                continue
            if b := row_block([c for c in cells if c], page, ledger, number):
                blocks.append(b)
            continue
        bare = ledger.step("markdown-syntax", page, line, _plain(line))
        if b := text_block(re.sub(r"^[-*+]\s+", "• ", bare), page, ledger=ledger, line=number):
            blocks.append(b)
    return blocks


# ---------------------------------------------------------------- HTML


class _Html(HTMLParser):
    KINDS = {f"h{n}": ("heading", n) for n in range(1, 7)} | {
        "p": ("para", 0),
        "li": ("item", 0),
        "tr": ("row", 0),
    }
    SKIP = ("script", "style", "nav", "header", "footer")

    def __init__(self, ledger: Ledger) -> None:
        super().__init__()
        self.ledger = ledger
        self.blocks: list[Block] = []
        self.open: list[tuple[str, list[str], int]] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:  # type: ignore[type-arg]
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.KINDS:
            self.open.append((tag, [], self.getpos()[0]))
        elif tag in ("td", "th") and self.open and self.open[-1][0] == "tr":
            self.open[-1][1].append("\x1f")  # a cell boundary
        elif tag == "br" and self.open:
            self.open[-1][1].append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.KINDS and self.open and self.open[-1][0] == tag:
            _, parts, line = self.open.pop()
            kind, level = self.KINDS[tag]
            raw = "".join(parts)
            if kind == "row":
                if b := row_block([c for c in raw.split("\x1f") if c.strip()], None, self.ledger, line):
                    self.blocks.append(b)
            elif kind == "heading":
                if b := heading_block(raw, None, level, None, self.ledger, line):
                    self.blocks.append(b)
            elif b := text_block(raw, None, ledger=self.ledger, line=line):
                if kind == "item" and b.kind != "item":
                    b = replace(b, kind="item", text=f"• {b.text}")
                self.blocks.append(b)

    def handle_data(self, data: str) -> None:
        self.ledger.read(None, data)
        if self.skip:
            self.ledger.remove("html-script-or-style", None, data)
            return
        if self.open:
            self.open[-1][1].append(data)
        elif data.strip() and (b := text_block(data, None, ledger=self.ledger, line=self.getpos()[0])):
            self.blocks.append(b)


def from_html(text: str, ledger: Ledger | None = None) -> list[Block]:
    parser = _Html(ledger if ledger is not None else Ledger())
    parser.feed(text)
    parser.close()
    return parser.blocks
