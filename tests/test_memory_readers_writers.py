"""A memory being written, opened from a second process: a reader sees each committed
batch and never touches the writer's index files; a second writer is told who writes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

from memory_stream import LECTURE, build_stream

from memory import MemoryReader, VideoMemory

_READER = textwrap.dedent("""
    import sys
    from memory import MemoryReader
    reader = MemoryReader.open(sys.argv[1])
    for line in sys.stdin:  # one line from the test per read, so no one waits on a clock
        hits = reader.search(line.strip(), k=1)
        print(len(reader.moments(0, 1e9)), hits[0].transcript if hits else "-", flush=True)
    reader.close()
""")

_WRITER = textwrap.dedent("""
    import sys
    from memory import VideoMemory
    from memory.errors import StoreError
    try:
        VideoMemory.open(sys.argv[1])
    except StoreError as exc:
        print(exc)
""")


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_reader_process_follows_the_writer_and_a_second_writer_is_refused(tmp_path):
    chunks, _truth = build_stream(LECTURE)
    half = len(chunks) // 2
    mem = VideoMemory.create(tmp_path / "mem")
    for chunk in chunks[:half]:
        mem.add(chunk)
    mem.flush()
    mem.checkpoint()
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(tmp_path / "mem")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=_env())
    try:
        reader.stdin.write("water cycle rain\n")
        reader.stdin.flush()
        before = reader.stdout.readline().split(" ", 1)
        for chunk in chunks[half:]:
            mem.add(chunk)
        mem.finish()  # commits the rest and saves the index files
        index_file = tmp_path / "mem" / "segments.faiss"
        saved = _digest(index_file)
        reader.stdin.write("water cycle rain\n")
        reader.stdin.flush()
        after = reader.stdout.readline().split(" ", 1)
        second = subprocess.run([sys.executable, "-c", _WRITER, str(tmp_path / "mem")],
                                capture_output=True, text=True, env=_env())
    finally:
        reader.stdin.close()
        reader.wait(timeout=120)
        reader.stdout.close()
    assert reader.returncode == 0
    assert int(after[0]) > int(before[0])  # new segments were seen as they committed
    assert "rain" in after[1].lower()
    assert _digest(index_file) == saved  # the reader's close wrote nothing
    message = second.stdout.strip()
    assert message.startswith(f"{tmp_path / 'mem'} is being written by process {os.getpid()}")
    assert "MemoryReader.open(" in message
    mem.close()
    again = VideoMemory.open(tmp_path / "mem")  # the lock went with the writer's close
    again.close()


def test_a_reader_in_the_same_process_writes_nothing(tmp_path):
    chunks, _truth = build_stream(LECTURE)
    with VideoMemory.create(tmp_path / "mem") as mem:
        mem.ingest(chunks)
    def index_files():  # SQLite may fold its WAL back on close; the rest is the writer's
        return {p.name: _digest(p) for p in (tmp_path / "mem").iterdir()
                if p.is_file() and not p.name.startswith("memory.sqlite")}

    files = index_files()
    assert "segments.faiss" in files
    with MemoryReader.open(tmp_path / "mem") as reader:
        assert reader.read_only and reader.search("photosynthesis", k=1)
    assert index_files() == files
