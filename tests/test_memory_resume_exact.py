"""kill -9 during ingest, then resume: the memory is the one an uninterrupted ingest builds.

A child process ingests the real sample lecture with the real models and SIGKILLs itself
right after handing chunk N to the memory (three different N: inside a batch, just past a
commit, late in the lecture). A fresh process then resumes with `VideoMemory.ingest`. The
chunks (words and their times, key frames), the segment boundaries and transcripts, and
the answers to the lecture's questions must equal those of an ingest that never stopped.
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

pytestmark = pytest.mark.slow

_CHILD = textwrap.dedent("""
    import os, signal, sys
    from memory import VideoMemory
    from memory.video import open_video
    video, directory, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mem = VideoMemory.create(directory)
    with open_video(video, start=float(mem.resume_index)) as source:
        for chunk in source:
            mem.add(chunk)
            if chunk.index == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
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
def lecture(tmp_path_factory):
    return make_lecture(2.0, 0, tmp_path_factory.mktemp("lecture"))


@pytest.fixture(scope="module")
def uninterrupted(lecture, tmp_path_factory):
    mem = VideoMemory.create(tmp_path_factory.mktemp("whole") / "mem")
    mem.ingest(lecture.video)
    snap = _snapshot(mem, lecture.truth)
    mem.close()
    return snap


@pytest.mark.parametrize("kill_at", [37, 61, 104])
def test_kill_9_then_resume_gives_the_uninterrupted_memory(lecture, uninterrupted, tmp_path,
                                                           kill_at):
    directory = tmp_path / "mem"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.run([sys.executable, "-c", _CHILD, str(lecture.video), str(directory),
                            str(kill_at)], env=env, capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    mem = VideoMemory.open(directory)
    committed = mem.next_index
    assert 0 < committed <= kill_at + 1  # it died mid-ingest with part of it committed
    mem.ingest(lecture.video)
    resumed = _snapshot(mem, lecture.truth)
    mem.close()
    assert [c[0] for c in resumed["chunks"]] == [c[0] for c in uninterrupted["chunks"]]
    assert resumed["chunks"] == uninterrupted["chunks"], "words or key frames differ"
    assert resumed["segments"] == uninterrupted["segments"], json.dumps(
        [resumed["segments"][:3], uninterrupted["segments"][:3]])[:2000]
    assert resumed["answers"] == uninterrupted["answers"]
