"""Reading evidence units back from the rows: what answering asks of the store.

Behaviour over `memory.store.db` and `memory.store.units` (no index, no reader): the
units of a stretch of time or of retrieved moments, the open stretch's cut on the fly,
footers flagged. `memory.store.reader` serves them through the `AnswerSource` port.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memory.evidence import SHOWN, Evidence, Moment
from memory.store.db import MemoryDB
from memory.store.levels import SEGMENT
from memory.store.records import ChunkRecord, UnitRecord
from memory.store.units import build_units, to_evidence

__all__ = ["BOILERPLATE_MIN_FRAMES", "BOILERPLATE_SHARE", "boilerplate", "moment_units",
           "units_between"]

BOILERPLATE_MIN_FRAMES = 3
BOILERPLATE_SHARE = 0.5
"""A screen line whose template was on this many key frames, and this share of all of
them so far, is a footer: never quoted."""


def boilerplate(db: MemoryDB, records: Sequence[UnitRecord], now: float) -> list[bool]:
    """Screen lines whose template was on most key frames so far (footers)."""
    templates = sorted({r.template for r in records if r.kind == SHOWN and r.template})
    counts = db.screen_counts(templates, now)
    frames = max(db.keyframes_before(now), 1)
    return [r.kind == SHOWN and counts.get(r.template, 0) >= BOILERPLATE_MIN_FRAMES
            and counts.get(r.template, 0) >= BOILERPLATE_SHARE * frames for r in records]


def units_between(db: MemoryDB, lo: float, hi: float, now: float, tail: list[ChunkRecord],
                  closed: float) -> list[Evidence]:
    """Units overlapping ``[lo, hi]`` that end by ``now``, in time order, footers flagged:
    closed segments' stored units and the open stretch's (``tail``: its chunks; segments
    closed after ``closed`` are open at ``now``), cut now."""
    records = db.units_overlapping(lo, hi)
    if tail:
        records = [r for r in records if r.end <= closed + 1e-6] + build_units(tail)
    records = sorted((r for r in records if r.end <= now + 1e-6), key=lambda r: r.start)
    flags = boilerplate(db, records, now)
    return [to_evidence(r, 0.0, flag) for r, flag in zip(records, flags)]


def moment_units(db: MemoryDB, hits: Sequence[Moment], now: float,
                 vector_of: Callable[[str], np.ndarray]
                 ) -> tuple[list[Evidence], list[int], np.ndarray]:
    """The units inside the retrieved moments that end by ``now`` (the open stretch's cut
    now and embedded with ``vector_of``), the index of each one's moment, their vectors."""
    ids = [m.id for m in hits if m.level == SEGMENT.name and m.id is not None]
    stored: dict[int, list[UnitRecord]] = {}
    for u in db.units_of(ids):
        stored.setdefault(u.segment_id, []).append(u)
    records: list[UnitRecord] = []
    owners: list[int] = []
    for j, m in enumerate(hits):
        if m.level == SEGMENT.name:
            mine = stored.get(m.id, [])
        else:  # the open stretch: cut its units now, embed them (cached)
            mine = build_units(db.chunks_ending_in(m.start, min(m.end, now)))
            for u in mine:
                u.embedding = vector_of(u.text)
        mine = [u for u in mine if u.end <= now + 1e-6 and u.embedding is not None]
        records += mine
        owners += [j] * len(mine)
    flags = boilerplate(db, records, now)
    units = [to_evidence(r, 0.0, f) for r, f in zip(records, flags)]
    vectors = np.vstack([r.embedding for r in records]).astype(np.float32) if records \
        else np.zeros((0, 0), np.float32)
    return units, owners, vectors
