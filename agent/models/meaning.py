"""Meaning for the offline model's evidence memory: embedders loaded once per process, offline.

`minilm` is all-MiniLM-L6-v2, a sentence encoder that recognises paraphrase
(agent.models.encoder); `wordllama` is wordllama's static embeddings, from its wheel.

wordllama (MIT) ships its weights (16 MB) and tokenizer config inside the package, but its
default load looks for the tokenizer under `tokenizer/` while the wheel has `tokenizers/`,
then tries to download from the model hub. Loaded here from the package's own folder with
downloads disabled, it never touches the network. If it cannot be loaded (not installed, a
broken wheel), the memory works on words alone, and the log says so once.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)
CONFIG = "l2_supercat"  # the configuration whose weights the wheel ships
DIM = 256
_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


class Embedder(Protocol):
    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text."""
        ...


class WordLlamaEmbedder:
    def __init__(self, model: Any):
        self.model = model

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self.model.embed(list(texts), norm=True), dtype=np.float32)
        return vectors.reshape(len(texts), -1)


def package_folder() -> Path | None:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def load_wordllama() -> WordLlamaEmbedder:
    """wordllama from its own package folder, downloads disabled; raises when it cannot load."""
    folder = package_folder()
    if folder is None:
        raise ModuleNotFoundError("wordllama is not installed")
    for name, value in _OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
    from wordllama import WordLlama

    # cache_dir = the package folder: its `tokenizers/` and `weights/` are where the wheel put them.
    model = WordLlama.load(config=CONFIG, dim=DIM, cache_dir=folder, disable_download=True)
    return WordLlamaEmbedder(model)


_lock = threading.Lock()
_loaded: dict[str, Embedder | None] = {}
# What each embedder is, for the one log line that says it loaded or did not.
NAMES = {"wordllama": f"wordllama {CONFIG}-{DIM}", "minilm": "all-MiniLM-L6-v2 (int8 ONNX)"}


def _load(name: str) -> Embedder:
    if name == "wordllama":
        return load_wordllama()
    if name == "minilm":
        from agent.models.encoder import load_minilm

        return load_minilm()
    raise ValueError(f"no embedder named {name!r}")


def embedder(name: str = "wordllama") -> Embedder | None:
    """The shared embedder `name` (wordllama, minilm), loaded once per process; None (logged
    once) when it cannot be loaded: the package absent, or a file not the one pinned."""
    with _lock:
        if name not in _loaded:
            try:
                _loaded[name] = _load(name)
                log.info("evidence memory: %s loaded from its package", NAMES.get(name, name))
            except Exception as exc:  # any failure to load means words alone, said once
                _loaded[name] = None
                log.warning(
                    "evidence memory: %s not loaded (%s: %s); matching on words only (lexical)",
                    NAMES.get(name, name),
                    type(exc).__name__,
                    exc,
                )
        return _loaded[name]
