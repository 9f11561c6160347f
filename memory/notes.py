"""`NotesMemory`: what the assistant knows, given as timed notes instead of watched video.

A small memory beside `memory.VideoMemory` (same query surface: ``version``, ``search``,
``moments``, ``answer``), for conversations without a video: scripted scenarios,
duplex evaluation sets, a lecture's own notes. Each note is ``{"start", "end", "text"}``
(media seconds; optional ``"transcript"`` and ``"ocr_text"``), and notes are searched by
the cosine similarity of text embeddings (any `memory.models.TextEmbedder`; MiniLM by
default, loaded on first use): a note scores as the best of its whole text and each of
its clauses (split at ``. ; : , ! ?``, three words or more), so a question about one
clause of a long note ("how do plants make seeds?" against "Bees carry pollen ..., which
lets plants make seeds; ...") finds that note although its whole text is about more.

Notes are knowledge given up front, not video seen so far: `NotesMemory.answer` quotes
the best note whatever the time it is asked at, and says it has not seen anything about
the question when no note is similar enough (``min_score``); `search` honours ``before``
like the video memory, for capabilities that ask for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.evidence import Answer, Moment, format_time
from memory.errors import NotesError
from memory.models.base import TextEmbedder

__all__ = ["Note", "NotesMemory"]

NOT_SEEN = "I have not seen anything about that yet."
_CLAUSE_BREAK = re.compile(r"[.;:,!?]+\s+")
MIN_CLAUSE_WORDS = 3


@dataclass(frozen=True)
class Note:
    """One stretch of what the assistant knows, in media seconds."""

    start: float
    end: float
    text: str
    transcript: str = ""
    ocr_text: str = ""

    @property
    def searchable(self) -> str:
        return " ".join(t for t in (self.text, self.transcript, self.ocr_text) if t)


class NotesMemory:
    """Notes searched with an embedder (see the module docstring).

    ``notes``: `Note`s or mappings with ``start``, ``end``, ``text`` (a malformed one is
    a `memory.errors.NotesError` naming it); ``min_score``: the cosine below which a
    question is not about any note.
    """

    def __init__(self, notes: Iterable[Note | Mapping[str, Any]] = (), *,
                 embedder: TextEmbedder | None = None, min_score: float = 0.25) -> None:
        self._embedder = embedder
        self.min_score = min_score
        self._notes: list[Note] = []
        self._vectors: np.ndarray | None = None  # whole notes, then clauses (first search)
        self._owner: np.ndarray | None = None  # the note each row of _vectors belongs to
        for i, note in enumerate(notes):
            self.add(note if isinstance(note, Note) else _parse(note, f"note {i}"))

    @classmethod
    def from_json(cls, path: str | Path, *, embedder: TextEmbedder | None = None,
                  min_score: float = 0.25) -> NotesMemory:
        """Notes from a JSON file holding a list of ``{"start", "end", "text"}`` objects."""
        path = Path(path)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise NotesError(f"cannot read the notes file {path}: {exc.strerror}; "
                             f"check the path") from None
        except json.JSONDecodeError as exc:
            raise NotesError(f"{path} is not JSON (line {exc.lineno}: {exc.msg})") from None
        if not isinstance(doc, list):
            raise NotesError(f"{path} must hold a JSON list of {{\"start\", \"end\", \"text\"}} "
                             f"notes, not a {type(doc).__name__}")
        notes = [_parse(n, f"{path}: note {i}") for i, n in enumerate(doc)]
        return cls(notes, embedder=embedder, min_score=min_score)

    # -- the memory surface ----------------------------------------------------------
    @property
    def version(self) -> int:
        """Grows by one with each note added."""
        return len(self._notes)

    @property
    def notes(self) -> tuple[Note, ...]:
        return tuple(self._notes)

    def add(self, note: Note) -> None:
        self._notes.append(note)
        self._vectors = None

    def search(self, query: str, k: int = 5, before: float | None = None) -> list[Moment]:
        """The ``k`` notes most similar to ``query`` (ending by ``before`` when given),
        best first, scored by cosine similarity."""
        if not self._notes or not query.strip():
            return []
        scores = self._scores(query)
        order = sorted(range(len(self._notes)), key=lambda i: (-scores[i], self._notes[i].start))
        hits = [i for i in order if before is None or self._notes[i].end <= before]
        return [self._moment(i, float(scores[i])) for i in hits[:k]]

    def moments(self, start: float, end: float) -> list[Moment]:
        """Notes overlapping ``[start, end)``, in time order."""
        inside = [i for i, n in enumerate(self._notes) if n.end > start and n.start < end]
        return [self._moment(i, 0.0) for i in sorted(inside, key=lambda i: self._notes[i].start)]

    def answer(self, question: str, at: float | None = None, k: int = 3) -> Answer:
        """The best note quoted with its time, or "not seen" when none is similar enough."""
        hits = [m for m in self.search(question, k=max(1, k)) if m.score >= self.min_score]
        if not hits:
            return Answer(question, NOT_SEEN, (), at)
        best = hits[0]
        return Answer(question, f"At {format_time(best.start)}, {best.text or best.transcript}",
                      tuple(hits), at)

    # -- internals -------------------------------------------------------------------
    def _scores(self, query: str) -> np.ndarray:
        """Per note: the best cosine of its whole text and its clauses."""
        embedder = self._embedder_or_default()
        if self._vectors is None:
            texts = [n.searchable for n in self._notes]
            owner = list(range(len(self._notes)))
            for i, note in enumerate(self._notes):
                parts = clauses(note.searchable)
                if len(parts) > 1:
                    texts += parts
                    owner += [i] * len(parts)
            self._vectors = np.asarray(embedder.embed(texts), np.float32)
            self._owner = np.asarray(owner)
        q = np.asarray(embedder.embed([query]), np.float32)[0]
        rows = self._vectors @ q
        scores = np.full(len(self._notes), -np.inf, np.float32)
        np.maximum.at(scores, self._owner, rows)
        return scores

    def _embedder_or_default(self) -> TextEmbedder:
        if self._embedder is None:
            from memory.models import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder

    def _moment(self, i: int, score: float) -> Moment:
        n = self._notes[i]
        return Moment(n.start, n.end, score, n.text, n.transcript, n.ocr_text, level="note",
                      id=i)


def clauses(text: str) -> list[str]:
    """The clauses of ``text`` worth a vector of their own: split at sentence and clause
    punctuation, each of `MIN_CLAUSE_WORDS` words or more."""
    return [c.strip(" .;:,!?") for c in _CLAUSE_BREAK.split(text)
            if len(c.split()) >= MIN_CLAUSE_WORDS]


def _parse(raw: Any, where: str) -> Note:
    if not isinstance(raw, Mapping):
        raise NotesError(f"{where} must be an object with start, end and text, "
                         f"not {type(raw).__name__}")
    unknown = sorted(set(raw) - {"start", "end", "text", "transcript", "ocr_text"})
    if unknown:
        raise NotesError(f"{where} has unknown field(s) {', '.join(unknown)}; a note has "
                         f"start, end, text (and optionally transcript, ocr_text)")
    try:
        start, end = float(raw["start"]), float(raw["end"])
        text = raw["text"]
    except KeyError as exc:
        raise NotesError(f"{where} has no {exc.args[0]!r}; a note needs start, end and text") from None
    except (TypeError, ValueError):
        raise NotesError(f"{where}: start and end must be numbers (seconds)") from None
    if not isinstance(text, str) or not text.strip():
        raise NotesError(f"{where}: text must be a non-empty string")
    if start < 0 or end < start:
        raise NotesError(f"{where}: need 0 <= start <= end, got start={start:g}, end={end:g}")
    extra = {key: str(raw.get(key, "") or "") for key in ("transcript", "ocr_text")}
    return Note(start, end, text.strip(), **extra)

