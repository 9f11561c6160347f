"""The app when its memory's disk fills up: the banner says one sentence, the conversation
goes on over what was committed, and watching resumes by itself once the disk writes.

Small fakes of the models (no speech, no text, hashed vectors) and a PIL writer that
fails from its Nth picture until space is "freed" (`test_memory_faults._FailingSaves`);
the ingest job runs on the test's thread and its wait for the disk takes no time.
"""

from __future__ import annotations

import pytest
from test_memory_faults import _OPTIONS, _contents, _FailingSaves, _models, _stream

from demos.ingest import IngestJob, can_write_to
from demos.state import AppOptions, AppSession
from memory import VideoMemory
from venus import SimulatedClock
from venus.testing import FakeFrontend


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    from memory.video import write_video

    chunks = _stream()
    path = tmp_path_factory.mktemp("video") / "noise.mp4"
    write_video(path, [c.frames[0].image for c in chunks], fps=1.0)
    return path


def _watched(memory_dir, video) -> dict:
    mem = VideoMemory.create(memory_dir, _models(), _OPTIONS)
    mem.ingest(str(video))
    contents = _contents(mem)
    mem.close()
    return contents


def test_a_full_disk_stalls_the_upload_with_one_sentence_then_it_resumes(
        tmp_path, monkeypatch, video):
    unbroken = _watched(tmp_path / "unbroken", video)
    disk = _FailingSaves(monkeypatch, nth=4)
    mem = VideoMemory.create(tmp_path / "mem", _models(), _OPTIONS)
    seen = []

    def can_write(directory):  # the banner while stalled; space returns on the 2nd try
        seen.append(job.progress())
        if len(seen) == 2:
            disk.heal()
        return disk.healed and can_write_to(directory)

    job = IngestJob(video, mem, 24, lambda: 0.0, "noise.mp4", retry_s=0.0, can_write=can_write,
                    workdir=tmp_path)
    job.run()
    stalled = seen[0]
    assert stalled.state == "stalled"
    assert stalled.error == (
        f"The app's work directory {tmp_path} is full: free space there or pass --workdir "
        f"DIR on another disk; what was committed is kept and watching resumes by itself "
        f"when it can write again.")
    assert job.progress().state == "done" and job.progress().error == ""
    assert _contents(mem) == unbroken  # the resumed ingest is the unbroken one
    mem.close()


def test_a_cancelled_tab_stops_waiting_for_the_disk(tmp_path, monkeypatch, video):
    _FailingSaves(monkeypatch, nth=1)
    mem = VideoMemory.create(tmp_path / "mem", _models(), _OPTIONS)

    def can_write(directory):
        job.cancel()  # the tab closes while the disk is full
        return False

    job = IngestJob(video, mem, 24, lambda: 0.0, retry_s=0.0, can_write=can_write)
    job.run()
    assert job.progress().state == "cancelled" and job.finished
    mem.close()


def test_the_camera_banner_says_the_disk_is_full_and_clears_when_it_writes_again(
        tmp_path, monkeypatch):
    app = AppSession("tab", AppOptions(root=tmp_path, camera_batch_s=2.0),
                     frontend_factory=lambda m: FakeFrontend(), models=_models(),
                     clock=SimulatedClock)
    try:
        app._reset("camera")  # the camera's memory, as the first webcam frame makes it
        disk = _FailingSaves(monkeypatch, nth=1)
        chunks = _stream()
        for chunk in chunks[:6]:
            app._remember(chunk)
        app._writer.submit(lambda: None).result()
        status = app.status()
        assert status.kind == "error"
        assert status.text.startswith(f"⚠️ The app's work directory {tmp_path} is full: free "
                                      f"space there or pass --workdir DIR on another disk")
        assert status.text.endswith("the camera is remembered again when it can write.")
        answer = app._answer("what was on screen?", 6.0)  # the conversation goes on
        assert "couldn't look that up" not in answer
        disk.heal()
        for chunk in chunks[6:12]:
            app._remember(chunk)
        app._writer.submit(lambda: None).result()
        assert app.fault is None and app.status().kind != "error"
        assert app.memory.version > 0
    finally:
        app.close()
