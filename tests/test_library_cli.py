"""``venus library`` list / search / remove on a synthetic library (real MiniLM, FAISS,
FTS5) and the errors a user meets."""

from __future__ import annotations

import json

import pytest

from memory.benchmarks.library import real_model, synthetic_library
from memory.library import VideoLibrary
from memory.store import MemoryModels
from venus.cli import EXIT_BAD_INPUT, main


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    models = MemoryModels()
    path = tmp_path_factory.mktemp("cli") / "lib"
    lib = VideoLibrary.create(path, models=models)
    for _ in synthetic_library(lib, 0.4, 0.2, seed=5, model=real_model(models.embedder)[0]):
        pass
    lib.close()
    return path


def test_list_search_and_remove(library, capsys):
    assert main(["library", "list", "-L", str(library), "--json"]) == 0
    videos = json.loads(capsys.readouterr().out)
    assert [v["video_id"] for v in videos] == ["synthetic-00000", "synthetic-00001"]
    assert all(v["state"] == "ready" and v["duration"] == 720.0 for v in videos)
    assert main(["library", "search", "cells and energy", "-L", str(library), "-k", "4",
                 "--video", "synthetic-00001", "--before", "5:00"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all(line.startswith("synthetic-00001 [") for line in lines)
    for line in lines:  # "[m:ss-m:ss]": every moment ends by the cutoff
        end = line.split("[")[1].split("]")[0].split("-")[1]
        m, s = end.split(":")[-2:]
        assert int(m) * 60 + int(s) <= 300
    assert main(["library", "remove", "synthetic-00000", "-L", str(library)]) == 0
    capsys.readouterr()
    assert main(["library", "list", "-L", str(library)]) == 0
    out = capsys.readouterr().out
    assert "synthetic-00000" not in out and "synthetic-00001" in out and "1 videos" in out


def test_bad_input_names_the_fix(library, tmp_path, capsys):
    assert main(["library", "list", "-L", str(tmp_path / "none")]) == EXIT_BAD_INPUT
    assert "VideoLibrary.create" in capsys.readouterr().err
    assert main(["library", "search", "x", "-L", str(library), "--before", "soon"]) == \
        EXIT_BAD_INPUT
    assert "give seconds (90) or m:ss" in capsys.readouterr().err
    assert main(["library", "search", "x", "-L", str(library), "--video", "nope"]) == \
        EXIT_BAD_INPUT
    assert "no video 'nope'" in capsys.readouterr().err
    assert main(["library", "ingest", str(tmp_path), "-L", str(tmp_path / "new"),
                 "--no-ray"]) == EXIT_BAD_INPUT
    assert "no video files in" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
