"""What the memory returns: `Moment`, `Answer`, and the `Answerer` seam.

`Moment` is one retrieved stretch of video (a chunk window, a segment or a chapter) with
everything needed to quote it; `Answer` is a reply with its citations. The embedded
`ExtractiveAnswerer` needs no model: it quotes the best sentence of the best moments
with their times. A generative backend (`memory.captioner.TransformersVLM`) implements
the same Protocol. This module sits below the store, which imports it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from memory.lexical import tokenize

__all__ = ["Answer", "Answerer", "ExtractiveAnswerer", "Moment", "format_time"]


@dataclass(frozen=True)
class Moment:
    """A retrieved stretch of video, in media seconds.

    ``text`` is the summary that was indexed; ``transcript`` what was said; ``ocr_text``
    what was on screen; ``keyframe`` a JPEG path (None when the stretch had none);
    ``level`` is "chunk" (the raw recent window), "segment" or "chapter".
    """

    start: float
    end: float
    score: float
    text: str
    transcript: str = ""
    ocr_text: str = ""
    keyframe: str | None = None
    level: str = "segment"
    id: int | None = None
    caption: str = ""

    def span(self) -> str:
        return f"{format_time(self.start)}-{format_time(self.end)}"


@dataclass(frozen=True)
class Answer:
    """A reply to a question asked at media time ``asked_at``, with the moments it cites.

    ``recent`` is the last ~60 s before ``asked_at``: always handed to the answerer, so a
    question about what just happened is never answered from older memory alone.
    """

    question: str
    text: str
    citations: tuple[Moment, ...] = ()
    asked_at: float | None = None
    recent: Moment | None = None
    time_window: tuple[float | None, float | None] = (None, None)
    extras: dict = field(default_factory=dict)


@runtime_checkable
class Answerer(Protocol):
    """Writes a reply from a question and the retrieved moments (best first)."""

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str: ...


def format_time(seconds: float) -> str:
    """Media time as m:ss (or h:mm:ss past the hour)."""
    s = int(round(max(0.0, seconds)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


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
