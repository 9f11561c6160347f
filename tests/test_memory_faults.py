"""A full or read-only disk under a memory: one sentence, nothing committed lost, and the
same stream resumes once space returns.

Two ways to meet it: an `OSError` raised by the JPEG writer on its Nth picture (PIL is
where a full disk first showed, issue 29), and a real 700 KB tmpfs (skipped where this
process cannot mount one). Models are small fakes of the Protocols (no speech, no text,
hashed vectors), so each test runs in seconds.
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import shutil
import subprocess

import numpy as np
import pytest

from memory import StoreFullError, StoreNotWritableError, StoreWriteError, VideoMemory
from memory.media import Frame, VideoChunk
from memory.store import MemoryModels, SpeechOptions, StoreOptions
from memory.store.faults import as_store_fault

_OPTIONS = StoreOptions(workers=False, checkpoint_every=1,
                        speech=SpeechOptions(batch_seconds=4, max_batch_seconds=8))


class _NoSpeech:
    def detect(self, audio):
        return []


class _NoWords:
    def transcribe(self, audio, offset=0.0):
        raise AssertionError("no speech is detected, so nothing is transcribed")


class _NoText:
    def read(self, image):
        return []


class _HashEmbedder:
    dim = 16

    def embed(self, texts):
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], np.uint8) for t in texts]
        v = np.asarray(rows, np.float32).reshape(len(texts), self.dim) + 1.0
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def _models() -> MemoryModels:
    return MemoryModels(vad=_NoSpeech(), asr=_NoWords(), ocr=_NoText(), embedder=_HashEmbedder())


def _stream(seconds: int = 24, side: int = 160) -> list[VideoChunk]:
    """A new picture of noise every 2 s (a key frame, so a JPEG, each time)."""
    rng = np.random.default_rng(0)
    chunks = []
    for i in range(seconds):
        if i % 2 == 0:
            image = rng.integers(0, 256, (side, side, 3), dtype=np.uint8)
        chunks.append(VideoChunk(i, float(i), float(i + 1), (Frame(i + 0.5, image),),
                                 np.zeros(16000, np.float32)))
    return chunks


def _feed(mem: VideoMemory, chunks: list[VideoChunk]) -> None:
    for chunk in chunks[mem.resume_index:]:
        mem.add(chunk)


def _contents(mem: VideoMemory) -> dict:
    return {"chunks": [(c.index, c.keyframe_id) for c in mem.db.all_chunks()],
            "segments": [(s.id, s.first_chunk, s.last_chunk) for s in mem.db.all_segments()],
            "keyframes": sorted(p.name for p in (mem.directory / "keyframes").iterdir())}


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory) -> dict:
    mem = VideoMemory.create(tmp_path_factory.mktemp("unbroken") / "mem", _models(), _OPTIONS)
    _feed(mem, _stream())
    mem.finish()
    contents = _contents(mem)
    mem.close()
    return contents


class _FailingSaves:
    """PIL's ``Image.save`` raising ``OSError(code)`` from its ``nth`` call on (a disk that
    fills up), until `heal` (space freed)."""

    def __init__(self, monkeypatch, nth: int, code: int = errno.ENOSPC) -> None:
        from PIL import Image

        self.calls, self.nth, self.code, self.healed = 0, nth, code, False
        real = Image.Image.save

        def save(image, fp, *args, **kwargs):
            self.calls += 1
            if not self.healed and self.calls >= self.nth:
                with open(fp, "wb") as f:  # a part of the file was written, as on a real disk
                    f.write(b"\xff\xd8partial")
                raise OSError(self.code, os.strerror(self.code), str(fp))
            return real(image, fp, *args, **kwargs)

        monkeypatch.setattr(Image.Image, "save", save)

    def heal(self) -> None:
        self.healed = True


def test_a_full_disk_is_one_sentence_and_the_stream_resumes_as_if_unbroken(
        tmp_path, monkeypatch, unbroken):
    disk = _FailingSaves(monkeypatch, nth=6)
    mem = VideoMemory.create(tmp_path / "mem", _models(), _OPTIONS)
    chunks = _stream()
    with pytest.raises(StoreFullError) as caught:
        _feed(mem, chunks)
    message = str(caught.value)
    assert message == (f"The memory directory {tmp_path / 'mem'} is full: free space there or "
                       f"use a directory on another disk; what was committed is kept and "
                       f"opening it again resumes.")
    assert "\n" not in message and caught.value.directory == str(tmp_path / "mem")
    assert isinstance(caught.value.__cause__, OSError)
    committed = mem.version
    assert 0 < committed < len(chunks)
    assert not list((tmp_path / "mem").rglob("*.tmp"))  # no half-written picture left
    # a read on the full disk answers from what was committed
    assert mem.search("anything", k=3, before=None) is not None
    disk.heal()
    _feed(mem, chunks)  # the same writer, fed again from its resume point
    mem.finish()
    assert _contents(mem) == unbroken
    mem.close()


def test_a_writer_that_stopped_on_a_full_disk_reopens_and_resumes(tmp_path, monkeypatch,
                                                                    unbroken):
    disk = _FailingSaves(monkeypatch, nth=4)
    mem = VideoMemory.create(tmp_path / "mem", _models(), _OPTIONS)
    with pytest.raises(StoreFullError):
        _feed(mem, _stream())
    committed = _contents(mem)["chunks"]
    mem.close()  # its checkpoint is a picture-free write, and no picture is pending
    disk.heal()
    again = VideoMemory.open(tmp_path / "mem", _models(), _OPTIONS)
    assert _contents(again)["chunks"] == committed  # nothing committed was lost
    _feed(again, _stream())
    again.finish()
    assert _contents(again) == unbroken
    again.close()


def test_permission_denied_is_one_sentence(tmp_path, monkeypatch):
    _FailingSaves(monkeypatch, nth=1, code=errno.EACCES)
    mem = VideoMemory.create(tmp_path / "mem", _models(), _OPTIONS)
    with pytest.raises(StoreNotWritableError, match=r"^The memory directory .* is not "
                       r"writable \(permission denied\): make it writable or use a "
                       r"writable directory; what was committed is kept"):
        _feed(mem, _stream())
    mem.close()


def test_other_os_errors_are_not_called_a_full_disk(tmp_path):
    assert as_store_fault(OSError(errno.EIO, "I/O error"), tmp_path) is None
    assert as_store_fault(FileNotFoundError(errno.ENOENT, "gone"), tmp_path) is None
    assert isinstance(as_store_fault(OSError(errno.EDQUOT, "quota"), tmp_path), StoreFullError)
    assert as_store_fault(OSError(errno.EROFS, "ro"), tmp_path).reason == "read-only file system"


def test_the_error_pickles_and_is_retold_in_a_commands_words():
    error = StoreFullError("/data/mem")
    back = pickle.loads(pickle.dumps(error))  # a batch worker process raises it
    assert type(back) is StoreFullError and str(back) == str(error)
    told = error.retold(flag="--memory DIR", resume="the same command resumes")
    assert str(told) == ("The memory directory /data/mem is full: free space there or pass "
                         "--memory DIR on another disk; what was committed is kept and the "
                         "same command resumes.")
    assert isinstance(told, StoreWriteError)


# -- a real small disk -------------------------------------------------------------------

def _mount(where, size: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    where = tmp_path / "disk"
    if not _mount(where, "700k"):
        pytest.skip("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def _remount(where, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True)


def test_a_real_full_disk_keeps_what_was_committed_and_resumes_when_space_returns(
        small_disk):
    chunks = _stream(seconds=24, side=256)  # ~100 KB a picture: the disk fills mid-stream
    directory = small_disk / "mem"
    mem = VideoMemory.create(directory, _models(), _OPTIONS)
    with pytest.raises(StoreFullError, match=f"^The memory directory {directory} is full"):
        _feed(mem, chunks)
    committed = _contents(mem)["chunks"]
    assert committed
    mem.close()  # its index checkpoint may not fit either: a cache, rebuilt on open
    assert not list(directory.rglob("*.tmp"))
    _remount(small_disk, "size=16m")  # space returns
    again = VideoMemory.open(directory, _models(), _OPTIONS)
    assert _contents(again)["chunks"] == committed
    _feed(again, chunks)
    again.finish()
    full = _contents(again)
    again.close()
    reference = VideoMemory.create(small_disk / "reference", _models(), _OPTIONS)
    _feed(reference, chunks)
    reference.finish()
    assert full == _contents(reference)
    reference.close()


def test_a_read_only_disk_is_one_sentence(small_disk):
    _remount(small_disk, "ro")
    with pytest.raises(StoreNotWritableError,
                       match=r"is not writable \(read-only file system\): make it writable "
                             r"or use a writable directory\.$"):
        VideoMemory.create(small_disk / "mem", _models(), _OPTIONS)


def test_a_library_video_stopped_by_a_full_disk_resumes_when_added_again(tmp_path,
                                                                          monkeypatch):
    from memory.library import VideoLibrary
    from memory.library.batch import _disk_fault

    chunks = _stream()
    disk = _FailingSaves(monkeypatch, nth=5)
    with VideoLibrary.create(tmp_path / "lib", _models(), _OPTIONS) as lib:
        with pytest.raises(StoreFullError, match=r"videos/00000-talk is full"):
            lib.add(chunks, video_id="talk")
        assert lib.video("talk").state == "ingesting"
    disk.heal()
    with VideoLibrary.open(tmp_path / "lib", _models(), _OPTIONS) as lib:
        record = lib.add(chunks, video_id="talk")  # the video's memory resumes
        assert record.state == "ready" and record.duration == len(chunks)
    # a batch stops at the first disk fault, also when Ray wraps it (as ``cause``)
    fault = StoreFullError("/lib/videos/x")
    wrapped = RuntimeError("task failed")
    wrapped.cause = fault
    assert _disk_fault(fault) is fault and _disk_fault(wrapped) is fault
    assert _disk_fault(RuntimeError("a bad video")) is None
