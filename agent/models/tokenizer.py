"""Token counts for prompts: the bench's figures and the release check's directory size."""

from __future__ import annotations

import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import Any


@cache
def tokenizer() -> Any:
    """tiktoken's cl100k_base from the copy litellm bundles: no download, works offline."""
    spec = importlib.util.find_spec("litellm")
    if spec and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")
