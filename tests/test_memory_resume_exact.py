"""kill -9 during ingest, then resume: the memory is the one an uninterrupted ingest builds.

A child process ingests the real sample lecture with the real models and SIGKILLs itself
right after handing chunk N (or the first chunk after it once a batch is committed) to
the memory. A fresh process then resumes with
`VideoMemory.ingest`. The chunks (words and their times, key frames), the segment
boundaries and transcripts, and the answers to the lecture's questions must equal those
of an ingest that never stopped.

Two ways of feeding it, each with its speech batches: chunk by chunk with
`VideoMemory.add` (live capture: 30 s batches; killed inside a batch, just past a commit
and late in a 2-minute lecture), and a whole file with `VideoMemory.ingest` (file
batches, the default ones: they grow with where they start, 30, 30, 60 and 120 s on
this 3.5-minute lecture; killed inside the second batch, after the first landed, and
inside the last one, so the resumed run must cut its batches where the unbroken one did).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from memory import VideoMemory
from memory.samples import make_lecture
from memory.samples.topics import QUESTIONS
from memory.store import StoreOptions

pytestmark = pytest.mark.slow

_OPTIONS = StoreOptions()  # the default batches (the child's too)

_CHILD = textwrap.dedent("""
    import os, signal, sys
    from memory import VideoMemory
    from memory.video import open_video
    video, directory, kill_at, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    mem = VideoMemory.create(directory)

    def maybe_die(chunk):
        # Whisper hears a batch beside the caller, so a batch is committed some chunks
        # after it was cut (decoding runs ahead): from kill_at on, wait for the batches
        # being heard, so the next chunk's add commits them, and die once one landed.
        if chunk.index >= kill_at and mem.version > 0:
            print(chunk.index, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        if chunk.index >= kill_at:
            for job in list(mem._pipeline.speech._inflight):
                job.heard.result()

    if mode == "add":  # live capture: chunk by chunk
        with open_video(video, start=float(mem.resume_index)) as source:
            for chunk in source:
                mem.add(chunk)
                maybe_die(chunk)
    else:  # the whole file, dying right after ingest hands a chunk to add
        add = mem.add
        def add_then_maybe_die(chunk):
            n = add(chunk)
            maybe_die(chunk)
            return n
        mem.add = add_then_maybe_die
        mem.ingest(video)
""")


def _snapshot(mem: VideoMemory, truth: dict) -> dict:
    chunks = [(c.index, c.start, c.end, [(w.text, w.start, w.end) for w in c.words],
               c.keyframe_id) for c in mem.db.all_chunks()]
    segments = [(s.id, s.start, s.end, s.first_chunk, s.last_chunk, s.transcript)
                for s in mem.db.all_segments()]
    titles = [s["title"] for s in truth["slides"] if s["title"] in QUESTIONS]
    answers = [mem.answer(QUESTIONS[t], at=mem.duration).text for t in titles]
    return {"chunks": chunks, "segments": segments, "answers": answers}


@pytest.fixture(scope="module")
def lectures(tmp_path_factory):
    return {"add": make_lecture(2.0, 0, tmp_path_factory.mktemp("lecture")),
            "ingest": make_lecture(3.5, 0, tmp_path_factory.mktemp("lecture35"))}


def _uninterrupted(lecture, directory, mode: str) -> dict:
    mem = VideoMemory.create(directory, options=_OPTIONS)
    mem.ingest(lecture.video, live=mode == "add")
    snap = _snapshot(mem, lecture.truth)
    mem.close()
    return snap


@pytest.fixture(scope="module")
def uninterrupted(lectures, tmp_path_factory):
    return {mode: _uninterrupted(lectures[mode], tmp_path_factory.mktemp(mode) / "mem", mode)
            for mode in ("add", "ingest")}


@pytest.mark.parametrize("mode,kill_at", [("add", 37), ("add", 61), ("add", 104),
                                          ("ingest", 40), ("ingest", 170)])
def test_kill_9_then_resume_gives_the_uninterrupted_memory(lectures, uninterrupted, tmp_path,
                                                           mode, kill_at):
    lecture = lectures[mode]
    whole = uninterrupted[mode]
    chunks = len(whole["chunks"])
    directory = tmp_path / "mem"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.run([sys.executable, "-c", _CHILD, str(lecture.video), str(directory),
                            str(kill_at), mode], env=env, capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    died_at = int(child.stdout.split()[-1])
    mem = VideoMemory.open(directory, options=_OPTIONS)
    committed = mem.next_index
    assert 0 < committed <= died_at + 1  # it died mid-ingest with part of it committed
    assert died_at < chunks - 1
    if mode == "ingest":  # killed inside a batch: it is redone, what came before is kept
        assert (committed < 65) if kill_at < 60 else (committed >= 55)
    mem.ingest(lecture.video, live=mode == "add")  # resumed as it was fed
    resumed = _snapshot(mem, lecture.truth)
    mem.close()
    assert [c[0] for c in resumed["chunks"]] == [c[0] for c in whole["chunks"]]
    assert resumed["chunks"] == whole["chunks"], "words or key frames differ"
    assert resumed["segments"] == whole["segments"], json.dumps(
        [resumed["segments"][:3], whole["segments"][:3]])[:2000]
    assert resumed["answers"] == whole["answers"]
