"""What the assistant knows in an evaluation: a notes memory, and the notes file format.

Bottom layer of `venus.eval` (plain data, no models). A *notes file* is a JSON list of
``{"start": seconds, "end": seconds, "text": "..."}``: what the assistant has seen, one
note per stretch of time. `NotesMemory` serves them through the memory view the
frontend and the capabilities use (`venus.harness.MemoryView`: ``version``, ``search``,
``moments``), so any Full-Duplex-Bench-format set runs with answers of realistic length
(``venus eval run ROOT --notes FILE``). `DEFAULT_NOTES` are what the synthesized
questions ask about; each is 27-31 words, so an answer runs 9-11 s, long enough for an
overlap placed 0.8-2 s into it to end well before the answer does.

This is the evaluation's own minimal memory (the runtime has none yet that a session
can be given without a video): search ranks notes by the content words they share with
the question (plural -s folded, function words ignored).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from memory.evidence import Moment
from venus.errors import ConfigError

__all__ = ["DEFAULT_NOTES", "NotesMemory", "load_notes", "write_notes"]

DEFAULT_NOTES: tuple[dict, ...] = (
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called "
     "photosynthesis: their chlorophyll catches the light, and the leaf joins carbon "
     "dioxide and water into sugar, giving off oxygen."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil through "
     "millions of tiny root hairs and anchor the plant; that water comes up through the "
     "stem to the leaves."},
    {"start": 60, "end": 90, "text": "Bees carry pollen from flower to flower while they "
     "collect nectar, which lets plants make seeds; each seed holds a tiny new plant and "
     "a store of food."},
    {"start": 90, "end": 120, "text": "Leaves look green because chlorophyll absorbs red and "
     "blue light and reflects the green; plants do not eat soil, they make their own food "
     "from light, air and water."},
)

_FUNCTION = frozenset(["a", "an", "and", "are", "at", "be", "but", "by", "can", "do", "does", "for", "from", "how", "i", "in", "is", "it", "me", "of", "on", "or", "so", "that", "the", "their", "they", "this", "to", "um", "was", "what", "when", "where", "which", "why", "with", "you", "your", "about", "tell", "wait", "sorry", "hold", "okay", "actually"])


class _NoteModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: float
    end: float
    text: str

    @model_validator(mode="after")
    def _ordered(self) -> _NoteModel:
        if self.end < self.start or not self.text.strip():
            raise ValueError("each note needs end >= start and a non-empty text")
        return self


def _content(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words} - _FUNCTION


class NotesMemory:
    """A `MemoryView` over fixed notes (``version`` is the number of notes); its moments
    are `memory.Moment` s."""

    def __init__(self, notes: Sequence[dict]) -> None:
        self.notes = [Moment(float(n["start"]), float(n["end"]), 0.0, n["text"]) for n in notes]
        self._words = [_content(n.text) for n in self.notes]

    @property
    def version(self) -> int:
        return len(self.notes)

    def search(self, query: str, k: int = 5, before: float | None = None) -> Sequence[Moment]:
        asked = _content(query)
        scored = [(len(asked & words) / max(1, len(asked)), n) for n, words in zip(self.notes, self._words)
                  if before is None or n.end <= before]
        scored = [(s, n) for s, n in scored if s > 0]
        scored.sort(key=lambda sn: (-sn[0], sn[1].start))
        return [replace(n, score=round(s, 3)) for s, n in scored[:k]]

    def moments(self, start: float, end: float) -> Sequence[Moment]:
        return sorted((n for n in self.notes if n.end > start and n.start < end), key=lambda n: n.start)


def load_notes(path: str | Path) -> list[dict]:
    """A notes file, validated: one clear error naming the file and the fix."""
    path = Path(path)
    fix = 'a JSON list of {"start": seconds, "end": seconds, "text": "..."}'
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the notes file {path} ({exc.strerror}); give {fix}") from None
    except ValueError as exc:
        raise ConfigError(f"the notes file {path} is not JSON ({exc}); give {fix}") from None
    if not isinstance(doc, list) or not doc:
        raise ConfigError(f"the notes file {path} must be {fix}, with at least one note")
    notes = []
    for i, note in enumerate(doc):
        try:
            notes.append(_NoteModel.model_validate(note).model_dump())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise ConfigError(f"the notes file {path}: note {i}{': ' + where if where else ''}: "
                              f"{first['msg']}; give {fix}") from None
    return notes


def write_notes(path: Path, notes: Sequence[dict]) -> Path:
    path.write_text(json.dumps(list(notes), indent=2) + "\n", encoding="utf-8")
    return path
