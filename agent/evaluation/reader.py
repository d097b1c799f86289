"""How well the evidence memory's reader recalls: the figures its settings were chosen by.

`python -m agent.evaluation.reader` reads the inventory's dev part only (never test or test2:
those stay unseen for the figures that report the choice) as the memory sees it, each question an
example of its governing wording version, and asks every answerable question of the memory built
from the others of its version (leave-one-out, through the runtime's own `Memory`). For each
reader (BM25 alone, BM25 with wordllama, BM25 with all-MiniLM-L6-v2 at several fusion weights,
MiniLM alone, all three) it prints:

- first clause right: the nearest verified question's first clause is the question's own first
  clause (the primary clause a right answer cites), as a share of answerable questions;
- served at 95 % right: questions taken in order of closeness (the reader's confidence), the
  largest share of answerable questions whose nearest neighbour's first clause is right at
  least 95 % of the time, and the closeness where that share stops;
- right at closeness thresholds (what `CLOSE` would serve on its own word);
- each embedder's load time, resident memory it added and time to encode one question.

Deterministic: the same inventory gives the same figures.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from agent.answering.examples import Example
from agent.models.meaning import Embedder, embedder
from agent.models.memory import Matching, Memory
from agent.seed import load_seed_files
from agent.settings import get_settings
from agent.wording.inventory_examples import examples_of
from agent.wording.questions import load_questions
from knowledge.releases import load_releases

TARGET = 0.95
THRESHOLDS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


@dataclass(frozen=True)
class Reader:
    name: str
    meaning: str | None  # the embedder giving the closeness, None for BM25 alone
    weight: float = 0.5  # the embeddings' share of the fused score
    also: tuple[str, ...] = ()
    matching: Matching = "paraphrase"


READERS = (
    Reader("BM25 alone", None, matching="lexical"),
    Reader("BM25 + wordllama (before)", "wordllama", 0.5, matching="fused"),
    Reader("BM25 + MiniLM, weight 0.1 (chosen)", "minilm", 0.1),
    Reader("BM25 + MiniLM, weight 0.25", "minilm", 0.25),
    Reader("BM25 + MiniLM, weight 0.4", "minilm", 0.4),
    Reader("BM25 + MiniLM, weight 0.5", "minilm", 0.5),
    Reader("BM25 + MiniLM, weight 0.67", "minilm", 2 / 3),
    Reader("BM25 + MiniLM, weight 0.75", "minilm", 0.75),
    Reader("MiniLM alone", "minilm", 1.0),
    Reader("BM25 + MiniLM + wordllama", "minilm", 2 / 3, ("wordllama",)),
)


@dataclass(frozen=True)
class Scored:
    reader: Reader
    answerable: int
    first_right: int
    served_95: int
    served_95_at: float | None
    at_threshold: dict[float, tuple[int, int]]  # threshold -> (served, right)


def dev_examples() -> dict[tuple[str, str], list[Example]]:
    """The dev part as the memory holds it, by wording version."""
    settings = get_settings()
    terms = {d["policy_number"]: d["term_start"] for d in load_seed_files()}
    records = load_releases(settings.policies_dir / "releases.toml")
    grouped: dict[tuple[str, str], list[Example]] = defaultdict(list)
    for example in examples_of(load_questions(None, ("dev",)), terms, records):
        grouped[(example.family, example.version)].append(example)
    return dict(grouped)


def served_at(rows: Sequence[tuple[float, bool]], target: float = TARGET) -> tuple[int, float | None]:
    """The most questions, taken in order of closeness, right at least `target` of the time (ties
    in closeness are taken together), and the closeness of the last one taken."""
    best, at = 0, None
    right = 0
    ordered = sorted(rows, key=lambda r: -r[0])
    for i, (closeness, ok) in enumerate(ordered, start=1):
        right += ok
        tie_follows = i < len(ordered) and ordered[i][0] == closeness
        if not tie_follows and right >= target * i:
            best, at = i, closeness
    return best, at


def score(
    reader: Reader, grouped: dict[tuple[str, str], list[Example]], loaded: dict[str, Embedder]
) -> Scored:
    rows: list[tuple[float, bool]] = []
    for examples in grouped.values():
        memory = Memory(
            examples,
            loaded[reader.meaning] if reader.meaning else None,
            matching=reader.matching,
            weight=reader.weight,
            also=[loaded[a] for a in reader.also],
        )
        for example in examples:
            if example.routed:
                continue
            recall = memory.recall(example.question, excluding=frozenset({example.key}))
            if recall is None:
                rows.append((0.0, False))
                continue
            nearest = recall.example
            ok = not nearest.routed and nearest.clause_ids[:1] == example.clause_ids[:1]
            rows.append((recall.closeness, ok))
    served, at = served_at(rows)
    thresholds = {t: (sum(c >= t for c, _ in rows), sum(c >= t and ok for c, ok in rows)) for t in THRESHOLDS}
    return Scored(reader, len(rows), sum(ok for _, ok in rows), served, at, thresholds)


def resident_mb() -> float:
    """This process's resident memory now (Linux), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def load(names: Sequence[str], sample: Sequence[str]) -> tuple[dict[str, Embedder], list[str]]:
    """Each embedder, loaded once, with its load time, added memory and time per question."""
    loaded: dict[str, Embedder] = {}
    lines = []
    for name in names:
        before, started = resident_mb(), time.perf_counter()
        found = embedder(name)
        took = time.perf_counter() - started
        if found is None:
            lines.append(f"{name}: not loaded (see the log); its readers are skipped")
            continue
        found(sample[:1])  # the first call sets up buffers: not a question's time
        started = time.perf_counter()
        for text in sample:
            found([text])
        per = (time.perf_counter() - started) / max(len(sample), 1) * 1000
        added = resident_mb() - before
        lines.append(f"{name}: loaded in {took:.2f} s, +{added:.0f} MB resident, {per:.1f} ms a question")
        loaded[name] = found
    return loaded, lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    grouped = dev_examples()
    questions = [e.question for examples in grouped.values() for e in examples]
    print(f"dev part: {len(questions)} examples in {len(grouped)} wording versions, leave-one-out")
    print(f"resident memory before any embedder: {resident_mb():.0f} MB")
    loaded, lines = load(("minilm", "wordllama"), questions[:100])
    print("\n".join(lines))
    header = ["reader", "first clause right", "served at 95 % right (closeness)"]
    header += [f"≥ {t}" for t in THRESHOLDS]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for reader in READERS:
        if reader.meaning and any(n not in loaded for n in (reader.meaning, *reader.also)):
            continue
        s = score(reader, grouped, loaded)
        at = "-" if s.served_95_at is None else f"{s.served_95_at:.2f}"
        cells = [
            reader.name,
            f"{s.first_right} of {s.answerable} ({s.first_right / s.answerable:.0%})",
            f"{s.served_95} ({s.served_95 / s.answerable:.0%}; {at})",
        ]
        cells += [f"{right}/{n}" for n, right in (s.at_threshold[t] for t in THRESHOLDS)]
        print("| " + " | ".join(cells) + " |")
    print(f"resident memory at the end: {resident_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["READERS", "Reader", "Scored", "dev_examples", "main", "score", "served_at"]
