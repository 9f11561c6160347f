"""`venus bench dataset NAME` end to end: each format's excerpt (in the authors' layout)
run causally by the real memory over a real video file, the official metric printed and
the authors' result files written."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from dataset_excerpts import (
    mlvu_dev_choice,
    mlvu_dev_open,
    mlvu_test,
    ovobench,
    streamingbench_csv_rows,
    streamingbench_proactive,
    streamingbench_real,
    streamingbench_sqa,
    vnbench,
    vniah,
    write_csv,
    write_json,
)
from memory_stream import LECTURE, build_stream, draw

from venus.cli import main

pytestmark = pytest.mark.slow

NAMES = ("sample_1_real.mp4", "sample_2_sqa.mp4", "sample_3_proactive.mp4", "sample_1/video.mp4",
         "lecture/lecture.mp4", "needle_1.mp4", "subPlot_1.mp4",
         "VNBench/v_lecture_ret_insert1.mp4")


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    """The test lecture as an H.264/AAC file, linked under every name the excerpts use."""
    from memory.video import write_video

    root = tmp_path_factory.mktemp("videos")
    chunks, _ = build_stream(LECTURE)
    lecture = write_video(root / "source" / "lecture-source.mp4",
                          [c.frames[0].image for c in chunks], 1.0,
                          np.concatenate([c.audio for c in chunks]))
    folder = root / "dataset"
    for name in NAMES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        os.link(lecture, folder / name)
    return folder


def _run(capsys, tmp_path, *args):
    out, doc = tmp_path / "out", tmp_path / "figures.json"
    code = main(["bench", "dataset", *args, "--out", str(out), "--json", str(doc)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    figures = json.loads(doc.read_text())
    assert {"dataset", "n", "metric", "score", "per_task"} <= set(figures)
    assert figures["leakage"] == 0
    assert f"{figures['metric']} = " in printed
    return figures, out, printed


def test_streamingbench_real_json(videos, tmp_path, capsys):
    ann = write_json(tmp_path / "questions_real.json", streamingbench_real())
    fig, out, _ = _run(capsys, tmp_path, "streamingbench", "--annotations", str(ann),
                       "--videos", str(videos))
    assert fig["metric"] == "accuracy" and fig["n"] == 2
    data = json.loads((out / "questions_real_output_realtime-venus.json").read_text())
    assert data[1]["questions"][0]["realtime-venus"] == "B"  # the code on the slide at 46 s


@pytest.mark.parametrize("kind", ["sqa", "proactive", "csv"])
def test_streamingbench_sqa_proactive_and_release_csv(kind, videos, tmp_path, capsys):
    if kind == "csv":
        ann = write_csv(tmp_path / "Real_Time_Visual_Understanding.csv", streamingbench_csv_rows())
    else:
        data = streamingbench_sqa() if kind == "sqa" else streamingbench_proactive()
        ann = write_json(tmp_path / f"questions_{kind}.json", data)
    fig, out, _ = _run(capsys, tmp_path, "streamingbench", "--annotations", str(ann),
                       "--videos", str(videos))
    assert fig["metric"] == ("answer_accuracy" if kind == "proactive" else "accuracy")
    assert next(iter(out.iterdir())).name.startswith(ann.stem + "_output_realtime-venus")


def test_ovobench(videos, tmp_path, capsys):
    ann = write_json(tmp_path / "ovo_bench_new.json", ovobench())
    fig, out, printed = _run(capsys, tmp_path, "ovobench", "--annotations", str(ann),
                             "--videos", str(videos))
    assert fig["metric"] == "total_avg" and fig["n"] == 6
    assert set(fig["per_split"]) == {"backward", "realtime", "forward"} and "[forward]" in printed
    assert (out / "results" / "realtime-venus").is_dir()


def test_mlvu_dev_folder_and_test_set(videos, tmp_path, capsys):
    folder = tmp_path / "json"
    write_json(folder / "2_needle.json", mlvu_dev_choice())
    write_json(folder / "8_sub_scene.json", mlvu_dev_open())
    fig, out, printed = _run(capsys, tmp_path, "mlvu", "--annotations", str(folder),
                             "--videos", str(videos))
    assert fig["metric"] == "m_avg" and "not scored offline: subPlot" in printed
    assert {p.name for p in out.iterdir()} == {"bench_all.json", "subplot_all.json"}
    test_dir = tmp_path / "test"
    test_dir.mkdir()
    ann = write_json(test_dir / "test_question.json", mlvu_test())
    fig, out, printed = _run(capsys, test_dir, "mlvu", "--annotations", str(ann),
                             "--videos", str(videos))
    assert fig["score"] is None and "not computed offline" in printed
    (row,) = json.loads((out / "test_res.json").read_text())
    assert row["question_id"] == "NQA_0" and row["option"] in "ABCDEF"


def test_vnbench(videos, tmp_path, capsys):
    ann = write_json(tmp_path / "vnbench.json", vnbench())
    fig, out, _ = _run(capsys, tmp_path, "vnbench", "--annotations", str(ann),
                       "--videos", str(videos))
    assert fig["metric"] == "overall" and fig["n"] == 4 and fig["score"] in (0.0, 1.0)
    assert len((out / "vnbench_result_realtime-venus.jsonl").read_text().splitlines()) == 4


def test_vniah_inserts_the_needle_into_the_haystack(videos, tmp_path, capsys):
    from PIL import Image

    needles = tmp_path / "needle_datasets"
    (needles / "images").mkdir(parents=True)
    Image.fromarray(draw("SELENIUM\n200 mg tablets", (250, 230, 120))).save(
        needles / "images" / "selenium.png")
    ann = write_json(needles / "dataset.json", vniah())
    hay = tmp_path / "haystack"
    hay.mkdir()
    os.link(videos / "lecture" / "lecture.mp4", hay / "haystack.mp4")
    fig, out, _ = _run(capsys, tmp_path, "vniah", "--annotations", str(ann), "--videos",
                       str(hay), "--limit", "2")
    assert fig["metric"] == "average_accuracy" and fig["n"] == 2
    assert (out / "avg_accuracy.txt").read_text().startswith("Average Accuracy:")
