"""`venus demo`, the main job, end to end on a real rendered lecture with real models."""

import re

import pytest

from venus.cli import main

pytestmark = pytest.mark.slow


def test_demo_streams_the_lecture_and_answers_with_timestamps(tmp_path, capsys):
    mem_dir = tmp_path / "mem"
    code = main(["demo", "--minutes", "1", "--samples", str(tmp_path), "--memory", str(mem_dir)])
    assert code == 0
    out = capsys.readouterr().out
    chunk_lines = re.findall(r"^\[\d\d:\d\d\] audio", out, flags=re.M)
    assert len(chunk_lines) >= 55  # one line per one-second chunk of a ~1-minute lecture
    assert "heard:" in out and "read:" in out
    answers = re.findall(r"^Q: .*\nA: (.+)\n   \((?:said|on screen) (\d+:\d\d)-\d+:\d\d, "
                         r"in the moment \d+:\d\d-\d+:\d\d", out, flags=re.M)
    assert len(answers) == 3, out[-2000:]
    # short, and timed by the sentence or line quoted
    assert all(a.startswith(f"At {t} ") and len(a) <= 200 for a, t in answers), answers
    assert (mem_dir / "VERSION").exists()


def test_demo_resumes_an_existing_memory_and_accepts_questions(tmp_path, capsys):
    args = ["demo", "--minutes", "0.5", "--samples", str(tmp_path), "--memory",
            str(tmp_path / "mem"), "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    assert main([*args, "-q", "What is the pH of lemon juice?"]) == 0
    out = capsys.readouterr().out
    assert "Q: What is the pH of lemon juice?" in out
    assert "Streaming" in out


def test_demo_on_a_missing_file_is_one_clear_error(tmp_path, capsys):
    assert main(["demo", str(tmp_path / "nope.mp4")]) == 3
    err = capsys.readouterr().err
    assert "nope.mp4" in err and "Traceback" not in err


def test_demo_without_faiss_says_which_extra_before_any_work(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "faiss" else real(name, *a))
    assert main(["demo", "--memory", str(tmp_path / "mem")]) == 3
    err = capsys.readouterr().err
    assert "pip install 'realtime-venus[cpu]'" in err and "Traceback" not in err
    assert not (tmp_path / "mem").exists()  # refused before a memory was made
