"""Benchmark annotation loaders (StreamingBench, OVO-Bench, MLVU, V-NIAH) on small files
written here, and the causal protocol run on a real memory."""

from __future__ import annotations

import json

import pytest
from memory_stream import LECTURE, build_stream, draw

from memory.benchmarks import (
    Probe,
    is_correct,
    load_mlvu,
    load_ovobench,
    load_streamingbench,
    load_vniah,
    run_probes,
    score_probes,
    vniah_probes,
)
from memory.benchmarks.formats import AnnotationError
from memory.benchmarks.protocol import with_needles


def _write(path, data):
    path.write_text(json.dumps(data))
    return path


@pytest.fixture()
def files(tmp_path):
    from PIL import Image

    (tmp_path / "images").mkdir()
    Image.fromarray(draw("SELENIUM 200 mg tablets", (250, 230, 120))).save(
        tmp_path / "images" / "selenium.png")
    return {
        "streaming": _write(tmp_path / "sb.json", [{
            "time": "[0:00:00 - 0:01:00]", "video_path": "./videos/lecture.mp4",
            "video_categories": "lecture",
            "questions": [{"task_type": "Text Recognition", "question": "What is the secret code?",
                           "time_stamp": "00:00:47", "answer": "B", "required_ability": "ocr",
                           "options": ["A. GREEN TIGER 7", "B. PURPLE ELEPHANT 42",
                                       "C. RED FOX 9", "D. BLUE WHALE 3"]},
                          {"task_type": "Text Recognition", "question": "What is the secret code?",
                           "time_stamp": "00:00:30", "answer": "B",
                           "options": ["A. GREEN TIGER 7", "B. PURPLE ELEPHANT 42"]}]}]),
        "ovo": _write(tmp_path / "ovo.json", [
            {"id": 1, "video": "lecture.mp4", "task": "EPM", "question": "Which topic came first?",
             "options": ["The water cycle", "Photosynthesis"], "realtime": 40.0, "gt": 1},
            {"id": 2, "video": "lecture.mp4", "task": "OCR", "question": "What does the slide say?",
             "options": ["Volcanoes", "Secret code: PURPLE ELEPHANT 42"], "realtime": 47, "gt": 1},
            {"id": 3, "video": "lecture.mp4", "task": "REC", "activity": "clap",
             "test_info": [{"realtime": 10, "count": 0}, {"realtime": 20, "count": 2}]},
            {"id": 4, "video": "lecture.mp4", "task": "CRR", "question": "What is the code?",
             "answer": "x", "test_info": [{"realtime": 10, "type": 0}, {"realtime": 47, "type": 1}]},
        ]),
        "mlvu": _write(tmp_path / "mlvu.json", [
            {"video": "lecture.mp4", "duration": 48.0, "question": "Who is the guest speaker?",
             "candidates": ["Professor Zanzibar", "Doctor Smith", "Mister Jones"],
             "answer": "Professor Zanzibar", "question_type": "needle"}]),
        "vniah": _write(tmp_path / "vniah.json", [
            {"path": "selenium.png", "answer": "200",
             "prompt": "\nFind the frame with the image of Selenium tablets. How many mg does "
                       "each tablet contain?\nAnswer the question using a single word or phrase."}]),
    }


def test_streamingbench(files):
    probes = load_streamingbench(files["streaming"])
    assert len(probes) == 2 and probes[0].ask_at == 47.0 and probes[0].answer == "B"
    assert probes[0].options[1] == "PURPLE ELEPHANT 42"
    assert "B. PURPLE ELEPHANT 42" in probes[0].prompt()


def test_ovobench_splits_and_forward_probes(files):
    probes = load_ovobench(files["ovo"])
    assert [(p.split, p.task) for p in probes] == [
        ("backward", "EPM"), ("realtime", "OCR"), ("forward", "REC"), ("forward", "REC"),
        ("forward", "CRR"), ("forward", "CRR")]
    assert probes[0].answer == "B" and probes[0].ask_at == 40.0
    assert probes[3].answer == "2" and probes[3].ask_at == 20.0
    assert [p.answer for p in probes[4:]] == ["No", "Yes"]
    nested = files["ovo"].with_name("nested.json")
    nested.write_text(json.dumps({"backward": json.loads(files["ovo"].read_text())[:1],
                                  "realtime": [], "forward": []}))
    assert len(load_ovobench(nested)) == 1


def test_mlvu_and_vniah(files):
    (probe,) = load_mlvu(files["mlvu"])
    assert probe.answer == "A" and probe.ask_at is None and probe.task == "needle"
    assert probe.id == "mlvu_0" and probe.extras["duration"] == 48.0
    needles = load_vniah(files["vniah"])
    assert needles[0].extras["image"].endswith("images/selenium.png")
    probes = vniah_probes(needles, "hay.mp4", 100.0, [0.0, 0.5, 1.0], seconds=3)
    assert [p.evidence for p in probes] == [(0.0, 3.0), (50.0, 53.0), (97.0, 100.0)]


def test_scoring_rules():
    mc = Probe("x", "1", "v", "q", "B", options=("a", "b"))
    assert is_correct(mc, "B") and is_correct(mc, "(B) b") and not is_correct(mc, "A. a")
    assert is_correct(Probe("ovobench", "2", "v", "q", "12", task="REC"), "12 times")
    assert is_correct(Probe("ovobench", "3", "v", "q", "Yes", task="CRR"), "Yes, it is")
    assert is_correct(Probe("vniah", "4", "v", "q", "200"), "each has 200 mg")


def test_wrong_files_are_clear_errors(files, tmp_path):
    with pytest.raises(AnnotationError, match="not a MLVU file"):
        load_mlvu(files["streaming"])
    with pytest.raises(AnnotationError, match="cannot read"):
        load_ovobench(tmp_path / "missing.json")


@pytest.mark.slow
def test_causal_protocol_on_a_real_memory(files, tmp_path):
    from memory.store import VideoMemory

    chunks, _ = build_stream(LECTURE)
    needles = load_vniah(files["vniah"])
    hay = vniah_probes(needles, "lecture", len(chunks), [0.5], seconds=3)
    mem = VideoMemory.create(tmp_path / "m")
    mem.ingest(with_needles(chunks, hay))
    probes = (load_streamingbench(files["streaming"]) + load_ovobench(files["ovo"])
              + load_mlvu(files["mlvu"]) + hay)
    results = run_probes(mem, probes)
    assert all(r.evidence_end <= r.asked_at + 1e-6 for r in results)
    scores = score_probes(results)
    assert scores["leakage"] == 0 and scores["n"] == len(probes)
    by_id = {(r.probe.benchmark, r.probe.id): r for r in results}
    assert by_id[("streamingbench", "lecture_1")].correct    # asked after the code slide
    assert by_id[("ovobench", "2")].correct
    assert by_id[("mlvu", "mlvu_0")].correct
    needle = by_id[("vniah", "0@0.5")]
    assert needle.evidence_hit and needle.correct
