"""VideoLibrary on synthetic rows merged through its real merge path (real MiniLM for the
questions, real FAISS and FTS5): scopes by video, per-video causal cutoffs, removal,
reopening, and the errors a user meets. Real ingest across videos: test_library_ingest."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from memory import StoreError
from memory.benchmarks.library import real_model, synthetic_library, synthetic_video
from memory.index.faiss_index import IndexOptions
from memory.library import VideoLibrary
from memory.library.db import ID_BITS, video_block
from memory.store import MemoryModels, StoreOptions, VideoMemory


@pytest.fixture(scope="module")
def models():
    return MemoryModels()


@pytest.fixture(scope="module")
def vector_model(models):
    return real_model(models.embedder, seed=0)[0]


def _library(path, models, vector_model, hours=0.6, video_hours=0.2, options=None):
    lib = VideoLibrary.create(path, models=models, options=options)
    for _ in synthetic_library(lib, hours, video_hours, seed=3, model=vector_model):
        pass
    return lib


def test_search_spans_videos_and_cites_them(tmp_path, models, vector_model):
    lib = _library(tmp_path / "lib", models, vector_model)
    ids = [v.video_id for v in lib.videos()]
    assert ids == ["synthetic-00000", "synthetic-00001", "synthetic-00002"]
    assert all(v.state == "ready" and v.duration == pytest.approx(720.0) for v in lib.videos())
    # a segment's own summary is the lexical index's first hit in its video's id block
    for no, vid in enumerate(ids):
        row = lib.db.segments_by_id([(no << ID_BITS) + 7])[0]
        assert lib.db.segment_text.search(row.summary, 1, video_block(no))[0][0] == row.id
        hits = lib.search(row.summary, k=5, videos=[vid])
        assert hits and {h.video_id for h in hits} == {vid}
        assert all(h.id < 1 << ID_BITS for h in hits)  # ids as in the video's own memory
    found = {m.video_id for m in lib.search("the lecture", k=30)}
    assert found == set(ids)
    lib.close()


def test_one_video_scope_ranks_as_a_library_of_that_video_alone(tmp_path, models,
                                                                 vector_model):
    lib = _library(tmp_path / "lib", models, vector_model)
    b = lib.videos()[1]
    lo, hi = video_block(b.number)
    segments = [dataclasses.replace(s, id=s.id - lo) for s in lib.db.all_segments()
                if lo <= s.id < hi]
    chapters = [dataclasses.replace(c, id=c.id - lo, first_segment=c.first_segment - lo,
                                    last_segment=c.last_segment - lo)
                for c in lib.db.all_chapters() if lo <= c.id < hi]
    alone = VideoLibrary.create(tmp_path / "alone", models=models)
    alone.register(None, video_id=b.video_id, state="ready")
    alone.merge_rows(b.video_id, segments, chapters, b.duration)
    for q in ("mitochondria release energy", "plates move", "what is on the slide"):
        for cut in (None, 300.0):
            got = [(m.id, m.start, round(m.score, 9)) for m in
                   lib.search(q, k=8, videos=[b.video_id], before=cut)]
            want = [(m.id, m.start, round(m.score, 9)) for m in
                    alone.search(q, k=8, before=cut)]
            assert got == want
    alone.close()
    lib.close()


def test_video_scope_and_per_video_cutoffs(tmp_path, models, vector_model):
    lib = _library(tmp_path / "lib", models, vector_model)
    a, b, c = (v.video_id for v in lib.videos())
    hits = lib.search("heat and plates", k=20, videos=[b])
    assert hits and {m.video_id for m in hits} == {b}
    hits = lib.search("heat and plates", k=40, before=200.0)
    assert hits and all(m.end <= 200.0 + 1e-6 for m in hits)
    cut = {a: 100.0, b: 400.0}  # c is not named: no cutoff for it
    hits = lib.search("heat and plates", k=60, before=cut)
    assert {m.video_id for m in hits} == {a, b, c}
    for m in hits:
        assert m.end <= cut.get(m.video_id, 1e9) + 1e-6
    assert any(m.video_id == c and m.end > 400.0 for m in hits)
    # a cutoff before a video's first segment leaves nothing of it; a window is kept
    assert lib.search("heat", k=5, videos=[a], before=1.0) == []
    hits = lib.search("heat", k=20, videos=[a, c], start=300.0, end=360.0)
    assert hits and all(m.end > 300.0 and m.start < 360.0 for m in hits)
    lib.close()


def test_scoped_search_matches_exact_search_above_the_exact_threshold(tmp_path, models,
                                                                      vector_model):
    """With the approximate index in use, a per-video scope is still answered exactly:
    the ids found equal a brute-force scan of that video's vectors."""
    options = StoreOptions(index=IndexOptions(approximate_at=300, exact_scope=200))
    lib = _library(tmp_path / "lib", models, vector_model, hours=3.0, video_hours=0.5,
                   options=options)
    index = lib._levels["segment"].vectors
    assert index.kind == "ivfpq" and len(index) > 300
    ids = lib.db.times("segments")[0]
    vectors = lib.db.embeddings("segments", ids)
    q = vector_model.questions(np.random.default_rng(9), 5)
    no = 1
    lo, hi = no << ID_BITS, (no + 1) << ID_BITS
    keep = (ids >= lo) & (ids < hi)
    truth = ids[keep][np.argsort(-(q @ vectors[keep].T), axis=1)[:, :10]]
    _, got = index.search(q, 10, [(lo, hi)])
    assert np.array_equal(np.sort(got, 1), np.sort(truth, 1))
    lib.close()


def test_remove_drops_rows_vectors_text_and_directory(tmp_path, models, vector_model):
    lib = _library(tmp_path / "lib", models, vector_model)
    a, b, c = lib.videos()
    row = lib.db.segments_by_id([(b.number << ID_BITS) + 3])[0]
    assert lib.search(row.summary, k=1)[0].video_id == b.video_id
    b.directory.mkdir(parents=True, exist_ok=True)
    lib.remove(b.video_id)
    assert not b.directory.exists()
    assert [v.video_id for v in lib.videos()] == [a.video_id, c.video_id]
    lo, hi = b.number << ID_BITS, (b.number + 1) << ID_BITS
    for table in ("segments", "chapters"):
        assert lib.db.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE id >= ? AND id < ?",
                                   (lo, hi)).fetchone()[0] == 0
        assert lib.db.conn.execute(f"SELECT COUNT(*) FROM {table}_fts WHERE rowid >= ? AND "
                                   f"rowid < ?", (lo, hi)).fetchone()[0] == 0
    vec_ids = lib._levels["segment"].vectors.ids()
    assert not ((vec_ids >= lo) & (vec_ids < hi)).any()
    assert all(m.video_id != b.video_id for m in lib.search(row.summary, k=50))
    with pytest.raises(StoreError, match="no video 'synthetic-00001'.*synthetic-00000"):
        lib.search("x", videos=[b.video_id])
    # a new video never reuses a removed video's number (nor its ids)
    new = lib.register(None, video_id="later", state="ready")
    assert new.number == 3
    lib.close()


def test_reopen_keeps_everything_and_rebuilds_a_lost_checkpoint(tmp_path, models,
                                                               vector_model):
    lib = _library(tmp_path / "lib", models, vector_model)
    query = lib.db.segments_by_id([(2 << ID_BITS) + 11])[0].summary
    before = [(m.video_id, m.id, m.start) for m in lib.search(query, k=8)]
    lib.close()
    lib = VideoLibrary.open(tmp_path / "lib", models=models)
    assert [(m.video_id, m.id, m.start) for m in lib.search(query, k=8)] == before
    lib.close()
    (tmp_path / "lib" / "segments.faiss").unlink()
    lib = VideoLibrary.open(tmp_path / "lib", models=models)
    assert [(m.video_id, m.id, m.start) for m in lib.search(query, k=8)] == before
    assert len(lib._levels["segment"].vectors) == lib.stats()["segments"]
    lib.close()


def test_merge_is_incremental_and_never_twice(tmp_path, models, vector_model):
    lib = VideoLibrary.create(tmp_path / "lib", models=models)
    segments, chapters = synthetic_video(np.random.default_rng(1), vector_model, 600.0)
    rec = lib.register(None, video_id="talk", state="live")
    half = len(segments) // 2
    lib.merge_rows("talk", segments[:half], [c for c in chapters
                                             if c.last_segment < half])
    assert lib.stats()["segments"] == half
    lib.merge_rows("talk", segments[half:], [c for c in chapters if c.last_segment >= half],
                   600.0)
    assert lib.stats()["segments"] == len(segments)
    assert len(lib._levels["segment"].vectors) == len(segments)
    assert lib.video("talk").number == rec.number
    lib.close()


def test_errors_name_the_fix(tmp_path, models, vector_model):
    with pytest.raises(StoreError, match=r"no video library at .*VideoLibrary.create"):
        VideoLibrary.open(tmp_path / "nothing", models=models)
    mem = VideoMemory.create(tmp_path / "one", models=models)
    mem.close()
    with pytest.raises(StoreError, match="one video's memory: open it with VideoMemory"):
        VideoLibrary.open(tmp_path / "one", models=models)
    lib = _library(tmp_path / "lib", models, vector_model, hours=0.2)
    with pytest.raises(StoreError, match="already holds a video library"):
        VideoLibrary.create(tmp_path / "lib", models=models)
    with pytest.raises(StoreError, match=r"already holds a video 'synthetic-00000'.*remove"):
        lib.register(None, video_id="synthetic-00000")
    with pytest.raises(StoreError, match="being written by .*one process writes a library at a time"):
        VideoLibrary.open(tmp_path / "lib", models=models)
    lib.close()
