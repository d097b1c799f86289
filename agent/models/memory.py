"""The offline model's evidence memory: verified questions of a wording version, recalled by meaning.

A new question is compared with the wording version's verified examples (agent.answering.examples)
two ways: BM25 (`bm25s`) on the offline model's terms (concepts and stemmed words, so "loaner"
meets "hire car"), and cosine similarity of wordllama embeddings (agent.models.meaning). The two
rankings are fused by reciprocal rank fusion; the best fused example is the recall, with its
closeness: the cosine similarity on the fused path, BM25 against the example's own score on
the lexical path. Without wordllama (the `lexical` setting, or a failed load) BM25 alone ranks.

Recall knows the claimant's cover (agent.answering.examples.Cover): a close example of the
claimant's own plan comes before any other, the nearest schedule first; an example of another
plan is not recalled when it cites a clause not known to be in the claimant's plan (known: in
the directory the model is shown now, or cited by an example of the claimant's plan), so what
a Comprehensive claimant was answered never steers a Third Party claimant to a clause their
plan lacks. An example or a claimant whose plan was not recorded is recalled as before.

A memory is built once per wording version, shared by every turn, and rebuilt only when the
version's examples change (a new, removed or relabelled example); the rebuild embeds only
questions it has not embedded before. Leave-one-out: every figure scored on evidence leaves the
scored question out of the memory (`excluding`), or each question would find itself; an
evaluation names it per turn through `leaving_out`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

import bm25s
import numpy as np

from agent.answering.examples import Cover, Example, ExampleSource
from agent.models.meaning import Embedder, embedder
from agent.models.vocabulary import terms

# paraphrase: BM25 fused with all-MiniLM-L6-v2 (agent.models.encoder); fused: BM25 with
# wordllama (agent.models.meaning); lexical: BM25 alone.
Matching = Literal["paraphrase", "fused", "lexical"]
RRF_K = 60  # reciprocal rank fusion's constant, as its authors use it
# The nearest examples whose citations count as support for the model's own title choice.
NEIGHBOURS = 3
# Closeness at or above CLOSE serves what the nearest example cites on its own word. Calibrated
# on the dev part only (leave-one-out), never on test or test2: docs/models.md gives the run.
CLOSE: dict[Matching, float] = {"paraphrase": 0.80, "fused": 0.80, "lexical": 1.0}
# The embeddings' share of the fused score (BM25 the rest); chosen on the dev part alone
# (`python -m agent.evaluation.reader`, docs/models.md).
MEANING_WEIGHT: dict[Matching, float] = {"paraphrase": 0.1, "fused": 0.5, "lexical": 0.0}

# The questions an evaluation is scoring in this context (a turn), left out of every memory.
LEAVE_OUT: ContextVar[frozenset[str]] = ContextVar("clausedesk_leave_out", default=frozenset())


@contextlib.contextmanager
def leaving_out(*keys: str) -> Iterator[None]:
    """Within this block, the memory recalls no example with these keys (leave-one-out)."""
    token = LEAVE_OUT.set(frozenset(k for k in keys if k))
    try:
        yield
    finally:
        LEAVE_OUT.reset(token)


@dataclass(frozen=True)
class Recall:
    """The verified questions nearest in meaning to a new one, nearest first, and how near the
    nearest is (0..1)."""

    neighbours: tuple[Example, ...]
    closeness: float
    matching: Matching

    @property
    def example(self) -> Example:
        return self.neighbours[0]

    @property
    def close(self) -> bool:
        return self.closeness >= CLOSE[self.matching]

    @property
    def supported(self) -> frozenset[str]:
        """The clauses the nearest verified questions cite: what the model's own choice must be among."""
        return frozenset(c for e in self.neighbours if not e.routed for c in e.clause_ids)


def _words(text: str) -> list[str]:
    return sorted(terms(text)) or [""]


class Memory:
    """One wording version's examples, indexed for recall."""

    def __init__(
        self,
        examples: Sequence[Example],
        meaning: Embedder | None = None,
        embedded: dict[str, np.ndarray] | None = None,
        *,
        matching: Matching | None = None,
        weight: float | None = None,
        also: Sequence[Embedder] = (),
    ):
        """`meaning` ranks by cosine and gives the closeness; `also` are further embedders fused
        in the same way (closeness still `meaning`'s). `weight` is the share of the fused score
        the embeddings carry together, BM25 the rest (0.5: each ranking counts alike).
        `embedded`: `meaning`'s vectors of questions an earlier build embedded, reused."""
        self.examples = list(examples)
        self.meaning = meaning
        self.matching: Matching = (matching or "fused") if meaning is not None else "lexical"
        self.weight = MEANING_WEIGHT[self.matching] if weight is None else weight
        self.bm25: bm25s.BM25 | None = None
        self.vectors: np.ndarray | None = None
        # question -> its embedding, handed to the next build so a new example costs one embedding
        self.embedded: dict[str, np.ndarray] = {}
        self.also = list(also) if meaning is not None else []
        self.also_vectors: list[np.ndarray] = []
        if not self.examples:
            return
        words = [_words(e.question) for e in self.examples]
        self.bm25 = bm25s.BM25()
        self.bm25.index(words, show_progress=False)
        # Each example against itself: the most BM25 gives it, to read a score as closeness.
        self.own = np.array([max(self.bm25.get_scores(w)[i], 1e-9) for i, w in enumerate(words)])
        if meaning is not None:
            before = embedded or {}
            new = list(dict.fromkeys(e.question for e in self.examples if e.question not in before))
            found = {**before, **(dict(zip(new, meaning(new), strict=True)) if new else {})}
            self.embedded = {e.question: found[e.question] for e in self.examples}
            self.vectors = np.stack([self.embedded[e.question] for e in self.examples])
            self.also_vectors = [embed([e.question for e in self.examples]) for embed in self.also]

    def __len__(self) -> int:
        return len(self.examples)

    def recall(
        self,
        question: str,
        *,
        excluding: frozenset[str] = frozenset(),
        cover: Cover | None = None,
        visible: frozenset[str] = frozenset(),
    ) -> Recall | None:
        """The nearest examples not excluded that may steer a claimant of `cover` (`visible`:
        the clause IDs the model is shown now), or None when there is none."""
        if self.bm25 is None:
            return None
        keep = np.array([e.key not in excluding for e in self.examples]) & self._fits(
            cover, visible, excluding
        )
        if not keep.any():
            return None
        lexical = np.asarray(self.bm25.get_scores(_words(question)), dtype=np.float64)
        lexical_closeness = np.minimum(lexical / self.own, 1.0)
        if self.vectors is None or self.meaning is None:
            fused, closeness = lexical, lexical_closeness
        else:
            cosine = self.vectors @ self.meaning([question])[0]
            others = [v @ embed([question])[0] for v, embed in zip(self.also_vectors, self.also, strict=True)]
            share = self.weight / (1 + len(others))
            # An example sharing no term with the question is not in BM25's ranking at all: its
            # place there would be its index, an order that means nothing (reciprocal rank fusion
            # counts only what a ranker returned). Meaning alone places it.
            by_words = np.where(lexical > 0, _rrf(lexical, keep), 0.0)
            fused = (1 - self.weight) * by_words + share * _rrf(cosine, keep)
            for other in others:
                fused = fused + share * _rrf(other, keep)
            closeness = np.clip(cosine, 0.0, 1.0)
        fused = np.where(keep & (fused > 0), fused, -np.inf)  # lexical: no shared word, no neighbour
        ranked = [int(i) for i in np.argsort(-fused, kind="stable") if np.isfinite(fused[i])]
        if not ranked:
            return None
        first = self._own_close_first(ranked, closeness, cover)
        order = [first, *(i for i in ranked if i != first)][:NEIGHBOURS]
        neighbours = tuple(self.examples[i] for i in order)
        return Recall(neighbours, float(closeness[order[0]]), self.matching)

    def _fits(self, cover: Cover | None, visible: frozenset[str], excluding: frozenset[str]) -> np.ndarray:
        """Which examples may steer a claimant of `cover`: their plan's, or one not recorded, or
        another plan's whose every cited clause is known to be in the claimant's plan."""
        if cover is None or not cover.plan:
            return np.ones(len(self.examples), dtype=bool)
        own = [e.cover.same_plan(cover) for e in self.examples]
        known = set(visible).union(
            *(
                e.clause_ids
                for e, mine in zip(self.examples, own, strict=True)
                if mine and e.key not in excluding
            )
        )
        return np.array(
            [
                mine or e.cover.unknown_against(cover) or set(e.clause_ids) <= known
                for e, mine in zip(self.examples, own, strict=True)
            ]
        )

    def _own_close_first(self, ranked: list[int], closeness: np.ndarray, cover: Cover | None) -> int:
        """The nearest example, or where one of the claimant's own plan is close, that one (the
        one whose schedule differs least from the claimant's, then the nearest)."""
        if cover is None or not cover.plan:
            return ranked[0]
        threshold = CLOSE[self.matching]
        own = [i for i in ranked if closeness[i] >= threshold and self.examples[i].cover.same_plan(cover)]
        if not own:
            return ranked[0]
        # `own` keeps the ranking's order, and min keeps the first of equals: the nearer one.
        return min(own, key=lambda i: len(self.examples[i].cover.sections ^ cover.sections))


def _rrf(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """1 / (K + rank) of each kept item in descending order of score."""
    order = np.argsort(-np.where(keep, scores, -np.inf), kind="stable")
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    return 1.0 / (RRF_K + ranks)


# The embedder each matching reads with (agent.models.meaning names them).
READS: dict[Matching, str] = {"paraphrase": "minilm", "fused": "wordllama"}


class Memories:
    """Every wording version's memory, built on first use, shared by every turn, and rebuilt
    when its examples change."""

    def __init__(self, source: ExampleSource, matching: Matching = "paraphrase"):
        self.source = source
        self.matching = matching
        self._built: dict[tuple[str, str], tuple[tuple[Example, ...], Memory]] = {}
        self._lock = threading.Lock()

    def memory(self, family: str, version: str) -> Memory:
        examples = tuple(
            e for e in self.source(family, version) if e.family == family and e.version == version
        )
        with self._lock:
            cached = self._built.get((family, version))
            if cached is not None and cached[0] == examples:
                return cached[1]
        meaning = embedder(READS[self.matching]) if self.matching in READS and examples else None
        before = cached[1].embedded if cached is not None else None
        built = Memory(examples, meaning, before, matching=self.matching)
        with self._lock:
            self._built[(family, version)] = (examples, built)
        return built

    def recall(
        self,
        family: str,
        version: str,
        question: str,
        *,
        cover: Cover | None = None,
        visible: frozenset[str] = frozenset(),
    ) -> Recall | None:
        """The nearest verified examples of this wording version that may steer a claimant of
        `cover`, the context's leave-outs excluded."""
        return self.memory(family, version).recall(
            question, excluding=LEAVE_OUT.get(), cover=cover, visible=visible
        )
