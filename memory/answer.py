"""The embedded answerer: extractive replies quoted from the retrieved moments.

The data it works on (`Moment`, `Answer`) lives in `memory.evidence`, the `Answerer`
seam in `memory.models.base`; both are re-exported here. The embedded
`ExtractiveAnswerer` needs no model: it quotes the best sentence of the best moments
with their times. A generative backend (`memory.captioner.TransformersVLM`) implements
the same Protocol. This module sits below the store, which imports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.evidence import Answer, Moment, format_time
from memory.lexical import tokenize
from memory.models.base import Answerer

__all__ = ["Answer", "Answerer", "ExtractiveAnswerer", "Moment", "format_time"]


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def best_sentence(text: str, question: str) -> str:
    """The sentence of ``text`` sharing the most terms with ``question`` (first on ties)."""
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    if not sentences:
        return ""
    want = set(tokenize(question))
    return max(sentences, key=lambda s: len(want & set(tokenize(s))))


@dataclass
class ExtractiveAnswerer:
    """Quotes the best-matching sentence of the top moments, with times and slide text."""

    max_moments: int = 2
    max_chars: int = 240

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str:
        picked = list(moments[: self.max_moments])
        if not picked and recent is not None and (recent.transcript or recent.ocr_text):
            picked = [recent]
        if not picked:
            return "I have not seen anything about that yet."
        return " ".join(self._quote(m, question) for m in picked)

    def _quote(self, moment: Moment, question: str) -> str:
        parts = [f"At {moment.span()}"]
        said = best_sentence(moment.transcript, question)
        if said:
            parts.append(f'it was said: "{self._clip(said)}"')
        if moment.ocr_text:
            parts.append(f'the screen showed: "{self._clip(moment.ocr_text)}"')
        if moment.caption:
            parts.append(f"the picture showed {self._clip(moment.caption)}")
        if len(parts) == 1:
            parts.append("nothing was said or written")
        return parts[0] + " " + "; ".join(parts[1:]) + "."

    def _clip(self, text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= self.max_chars else text[: self.max_chars - 1] + "…"
