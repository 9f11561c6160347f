"""A long memory synthesized from a real one, for timing retrieval at hours of scale.

Ingesting ten hours to time a query is wasteful: `replicate_memory` copies the rows of
an ingested memory (chunks, key frames, segments with their embeddings and evidence
units, chapters) end to
end with shifted times and ids until the copy spans ``hours``. The rows are real model
output, only repeated, so index sizes and row lengths are those of real video.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from memory.store.db import MemoryDB

__all__ = ["replicate_memory"]


def replicate_memory(source: MemoryDB, target_dir: str | Path, hours: float,
                     memory_cls=None, models=None):
    """Write a memory of about ``hours`` into ``target_dir`` (which must not exist)."""
    from memory.store.memory import VideoMemory

    cls = memory_cls or VideoMemory
    mem = cls.create(target_dir, models=models)
    chunks, segments, chapters = source.all_chunks(), source.all_segments(), source.all_chapters()
    by_segment: dict[int, list] = {}
    for u in source.all_units():
        by_segment.setdefault(u.segment_id, []).append(u)
    for s in segments:
        s.units = by_segment.get(s.id, [])
    keyframes = {k: source.keyframe(k) for k in {c.keyframe_id for c in chunks} if k is not None}
    span = chunks[-1].end if chunks else 0.0
    copies = max(1, int(round(hours * 3600 / span))) if span else 0
    version = 0
    for n in range(copies):
        shifted = _shift(n, span, chunks, segments, chapters, keyframes)
        version += len(shifted[0])
        mem.db.commit(*shifted, version=version)
    mem.db.set_meta("embedding_dim", source.get_meta("embedding_dim", "384"))
    mem.close()
    return cls.open(target_dir, models=models)


def _shift(n, span, chunks, segments, chapters, keyframes):
    dc, ds, dk = n * len(chunks), n * len(segments), n * len(chapters)
    dt = n * span
    out_chunks = []
    for c in chunks:
        kf = keyframes.get(c.keyframe_id) if c.keyframe_id == c.index else None
        new_kf = None if kf is None else dataclasses.replace(kf, id=kf.id + dc, time=kf.time + dt)
        out_chunks.append(dataclasses.replace(
            c, index=c.index + dc, start=c.start + dt, end=c.end + dt,
            keyframe_id=None if c.keyframe_id is None else c.keyframe_id + dc,
            segment_id=None if c.segment_id is None else c.segment_id + ds,
            new_keyframe=new_kf))
    out_segments = [dataclasses.replace(
        s, id=s.id + ds, start=s.start + dt, end=s.end + dt, first_chunk=s.first_chunk + dc,
        last_chunk=s.last_chunk + dc,
        keyframe_id=None if s.keyframe_id is None else s.keyframe_id + dc,
        chapter_id=None if s.chapter_id is None else s.chapter_id + dk,
        units=[dataclasses.replace(
            u, start=u.start + dt, end=u.end + dt, segment_id=s.id + ds,
            keyframe_id=None if u.keyframe_id is None else u.keyframe_id + dc)
            for u in s.units]) for s in segments]
    out_chapters = [dataclasses.replace(
        c, id=c.id + dk, start=c.start + dt, end=c.end + dt, first_segment=c.first_segment + ds,
        last_segment=c.last_segment + ds) for c in chapters]
    return out_chunks, out_segments, out_chapters
