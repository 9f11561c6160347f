"""`Reranker` backends from a local path: a cross-encoder, or a SQuAD 2.0 style QA model.

No such model ships inside any package (both were looked for), so neither is a default:
set ``MemoryModels(reranker=CrossEncoderReranker("/models/ms-marco-MiniLM-L-6-v2"))`` or
``ExtractiveQAReranker("/models/roberta-base-squad2")`` and the store blends its scores
into the evidence units' (`memory.answering.AnswerOptions.reranker_weight`, `memory.answering.RerankBlend`).

- `CrossEncoderReranker` (``AutoModelForSequenceClassification``): ``score`` is the
  relevance logit (the single logit, or the last label's with several).
- `ExtractiveQAReranker` (``AutoModelForQuestionAnswering``): per passage, the best span
  (start + end logit, end not before start, at most ``max_answer_tokens``, inside the
  passage) against the null answer at the first token; ``score`` is the best span's
  margin over the null answer and ``no_answer`` is 0, so a passage whose null answer
  wins is marked as holding no answer, and ``span`` is the answering words.

Both load lazily, from ``model_path`` only (never downloaded), and run under a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.errors import ModelUnavailableError
from memory.models.base import Relevance

__all__ = ["CrossEncoderReranker", "ExtractiveQAReranker", "RerankOptions"]


@dataclass
class RerankOptions:
    max_length: int = 256
    batch_size: int = 16
    max_answer_tokens: int = 30
    device: str = "cpu"


class _Transformer:
    """A tokenizer + model pair loaded on first use from a local directory."""

    auto_class = ""
    kind = ""

    def __init__(self, model_path: str | Path, options: RerankOptions | None = None) -> None:
        self.model_path = Path(model_path).expanduser()
        self.options = options or RerankOptions()
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def _get(self) -> tuple[Any, Any]:
        if self._loaded is None:
            if not (self.model_path / "config.json").is_file():
                raise ModelUnavailableError(
                    f"no {self.kind} at {self.model_path}; pass the directory of a downloaded "
                    f"checkpoint (models are never downloaded at run time)")
            import transformers

            from memory.models.embedder import no_progress_bar

            try:
                with no_progress_bar():
                    tokenizer = transformers.AutoTokenizer.from_pretrained(
                        str(self.model_path), local_files_only=True)
                    model = getattr(transformers, self.auto_class).from_pretrained(
                        str(self.model_path), local_files_only=True)
            except (OSError, ValueError) as exc:
                raise ModelUnavailableError(
                    f"could not load the {self.kind} at {self.model_path} ({exc}); pass a "
                    f"complete local checkpoint directory") from exc
            self._loaded = (tokenizer, model.eval().to(self.options.device))
        return self._loaded

    def rerank(self, question: str, passages: Sequence[str]) -> list[Relevance]:
        import torch

        tokenizer, model = self._get()
        out: list[Relevance] = []
        step = self.options.batch_size
        with self._lock, torch.inference_mode():
            for i in range(0, len(passages), step):
                out += self._batch(tokenizer, model, question, list(passages[i:i + step]))
        return out

    def _batch(self, tokenizer, model, question: str, passages: list[str]) -> list[Relevance]:
        raise NotImplementedError


class CrossEncoderReranker(_Transformer):
    """A cross-encoder scoring (question, passage) relevance."""

    auto_class = "AutoModelForSequenceClassification"
    kind = "cross-encoder"

    def _batch(self, tokenizer, model, question, passages):
        enc = tokenizer([question] * len(passages), passages, padding=True, truncation=True,
                        max_length=self.options.max_length, return_tensors="pt")
        logits = model(**{k: v.to(self.options.device) for k, v in enc.items()}).logits
        scores = logits[:, -1] if logits.shape[-1] > 1 else logits[:, 0]
        return [Relevance(float(s)) for s in scores]


class ExtractiveQAReranker(_Transformer):
    """A SQuAD 2.0 style extractive QA model: best span against the null answer."""

    auto_class = "AutoModelForQuestionAnswering"
    kind = "extractive QA model"

    def _batch(self, tokenizer, model, question, passages):
        import torch

        enc = tokenizer([question] * len(passages), passages, padding=True,
                        truncation="only_second", max_length=self.options.max_length,
                        return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")
        result = model(**{k: v.to(self.options.device) for k, v in enc.items()})
        out = []
        for row, passage in enumerate(passages):
            context = torch.tensor([s == 1 for s in enc.sequence_ids(row)])
            if not bool(context.any()):
                out.append(Relevance(-1e9, 0.0))
                continue
            start = result.start_logits[row].float().cpu()
            end = result.end_logits[row].float().cpu()
            null = float(start[0] + end[0])
            pair = start[:, None] + end[None, :]  # pair[a, b]: the span from token a to b
            n = len(start)
            a, b = torch.arange(n)[:, None], torch.arange(n)[None, :]
            valid = (b >= a) & (b < a + self.options.max_answer_tokens) \
                & context[:, None] & context[None, :]
            pair = pair.masked_fill(~valid, float("-inf"))
            flat = int(torch.argmax(pair))
            a_best, b_best = divmod(flat, n)
            lo, hi = int(offsets[row, a_best, 0]), int(offsets[row, b_best, 1])
            out.append(Relevance(float(pair.view(-1)[flat]) - null, 0.0, passage[lo:hi]))
        return out
