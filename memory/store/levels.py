"""The levels of the hierarchy as objects: how each is read and turned into a `Moment`.

A `Level` names its rows' queries and its lexical index in the database and how one of
its rows becomes a `Moment`, so the reader has no ``level == "segment"`` branches:
segments are quoted with their speech, screen text and key frame, and the stretch not
yet closed into a segment is searched with them (``open_stretch``); chapters are quoted
by their summary.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.evidence import Moment
from memory.store.db import MemoryDB, TextIndex

__all__ = ["CHAPTER", "LEVELS", "SEGMENT", "Level", "keyframe_path", "level_named"]


def keyframe_path(directory: Path, keyframe_id: int | None) -> str | None:
    return None if keyframe_id is None else str(directory / f"keyframes/{keyframe_id:08d}.jpg")


@dataclass(frozen=True)
class Level:
    """One level: ``rows`` (all, to load its index), ``by_id``, ``ending_in(lo, hi)``,
    its ``text`` index, and ``moment(row, score, directory)``."""

    name: str
    rows: Callable[[MemoryDB], list[Any]]
    by_id: Callable[[MemoryDB, Sequence[int]], list[Any]]
    ending_in: Callable[[MemoryDB, float, float], list[Any]]
    text: Callable[[MemoryDB], TextIndex]
    moment: Callable[[Any, float, Path], Moment]
    open_stretch: bool = False

    @property
    def checkpoint_file(self) -> str:
        return f"{self.name}s.faiss"


def _segment_moment(row, score: float, directory: Path) -> Moment:
    return Moment(row.start, row.end, score, row.summary, row.transcript, row.ocr_text,
                  keyframe_path(directory, row.keyframe_id), "segment", row.id)


def _chapter_moment(row, score: float, directory: Path) -> Moment:
    return Moment(row.start, row.end, score, row.summary, level="chapter", id=row.id)


SEGMENT = Level("segment", MemoryDB.all_segments, MemoryDB.segments_by_id,
                MemoryDB.segments_ending_in, lambda db: db.segment_text, _segment_moment,
                open_stretch=True)
CHAPTER = Level("chapter", MemoryDB.all_chapters, MemoryDB.chapters_by_id,
                MemoryDB.chapters_ending_in, lambda db: db.chapter_text, _chapter_moment)
LEVELS = {level.name: level for level in (SEGMENT, CHAPTER)}


def level_named(name: str | Level) -> Level:
    """The `Level` for a public ``level=`` argument ("segment" or "chapter")."""
    if isinstance(name, Level):
        return name
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"level must be one of {tuple(LEVELS)}, got {name!r}") from None
