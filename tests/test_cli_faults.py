"""The command line on a full or read-only memory disk: one sentence on stderr that names
the directory and the flag, exit code 3 (bad input), no traceback; and the same command
resumes once there is space.

The read-only cases stop before any model is loaded (fast); the full disk runs the real
demo on a 700 KB tmpfs, as issue 29 measured it (slow). Both need a tmpfs: skipped where
this process cannot mount one.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from venus.cli import EXIT_BAD_INPUT, main


def _mount(where, options: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, check=False)
    return done.returncode == 0


@pytest.fixture
def disk(tmp_path):
    where = tmp_path / "disk"
    if not _mount(where, "size=700k"):
        pytest.skip("cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN)")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def _read_only(where) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    from memory.video import write_video

    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("video") / "clip.mp4"
    write_video(path, [rng.integers(0, 256, (96, 96, 3), dtype=np.uint8) for _ in range(3)],
                fps=1.0)
    return path


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("venus: error:")]
    assert len(lines) == 1, err
    return lines[0].removeprefix("venus: error: ")


def test_demo_on_a_read_only_memory_disk(disk, video, capsys):
    _read_only(disk)
    assert main(["demo", str(video), "--memory", str(disk / "mem"), "--quiet"]) == EXIT_BAD_INPUT
    assert _one_line(capsys.readouterr().err) == (
        f"The memory directory {disk / 'mem'} is not writable (read-only file system): make "
        f"it writable or pass a writable --memory DIR.")


def test_library_ingest_and_add_on_a_read_only_disk(disk, video, capsys):
    _read_only(disk)
    library = disk / "lib"
    for argv in (["library", "ingest", str(video.parent), "--library", str(library)],
                 ["library", "add", str(video), "--library", str(library)]):
        assert main(argv) == EXIT_BAD_INPUT
        assert _one_line(capsys.readouterr().err) == (
            f"The library directory {library} is not writable (read-only file system): "
            f"make it writable or pass a writable --library DIR.")


def test_talk_on_a_read_only_output_disk(disk, video, capsys):
    _read_only(disk)
    assert main(["talk", str(video), "--simulated", "--out", str(disk)]) == EXIT_BAD_INPUT
    assert _one_line(capsys.readouterr().err) == (
        f"The output directory {disk} is not writable (read-only file system): make it "
        f"writable or pass a writable --out DIR.")


@pytest.mark.slow
def test_demo_on_a_full_disk_keeps_what_was_committed_and_the_same_command_resumes(
        disk, tmp_path, capsys):
    memory = disk / "mem"
    argv = ["demo", "--minutes", "1", "--samples", str(tmp_path / "samples"),
            "--memory", str(memory), "--quiet"]
    assert main(argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # the sentence alone, no warning beside it
    assert _one_line(err) == (
        f"The memory directory {memory} is full: free space there or pass --memory DIR on "
        f"another disk; what was committed is kept and the same command resumes.")
    from memory import MemoryReader

    with MemoryReader.open(memory) as kept:
        committed = kept.duration
    assert committed > 0
    subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\nA: ") == 3, out[-2000:]
