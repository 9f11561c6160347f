"""The published benchmarks' loaders, official scorers and result files, on excerpts in
the authors' exact layout (tests/dataset_excerpts.py). The end-to-end runs over real
videos are in tests/test_bench_dataset.py."""

from __future__ import annotations

import json

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

from memory.benchmarks import AnnotationError, Probe, ProbeResult
from memory.benchmarks import mlvu as mlvu_fmt
from memory.benchmarks import ovobench as ovo_fmt
from memory.benchmarks import streamingbench as sb
from memory.benchmarks import vnbench as vn_fmt
from memory.benchmarks import vniah as vniah_fmt
from memory.benchmarks.runner import select
from venus.cli import EXIT_BAD_INPUT, main


def _result(probe, response, fmt, **extras):
    return ProbeResult(probe, probe.ask_at or 0.0, response, fmt.correct(probe, response), 0.0,
                       None, extras)


def test_streamingbench_real_json_keeps_times_options_and_abilities(tmp_path):
    probes = sb.load(write_json(tmp_path / "questions_real.json", streamingbench_real()))
    assert [p.id for p in probes] == ["sample_1_real_1", "sample_1_real_2"]
    second = probes[1]
    assert second.ask_at == 46.0 and second.answer == "B" and second.task == "Text Recognition"
    assert second.options[1] == "PURPLE ELEPHANT 42." and second.split == "working memory"
    assert second.video == "./videos/sample_1_real.mp4"


def test_streamingbench_sqa_is_a_list_of_lists_asked_as_one_sequence(tmp_path):
    probes = sb.load(write_json(tmp_path / "questions_sqa.json", streamingbench_sqa()))
    assert [p.ask_at for p in probes] == [25.0, 35.0]
    assert {p.group for p in probes} == {"sqa-0"} and probes[0].options[2] == "The oceans."


def test_streamingbench_proactive_has_no_answer_letter_but_a_ground_truth(tmp_path):
    (probe,) = sb.load(write_json(tmp_path / "questions_proactive.json",
                                  streamingbench_proactive()))
    assert probe.task == sb.PROACTIVE and probe.options == ()
    assert probe.extras["ground_truth_time"] == 37.0
    assert probe.answer == probe.extras["ground_truth_output"] == "PURPLE ELEPHANT 42"


def test_streamingbench_release_csv_uses_question_id_and_sample_folders(tmp_path):
    (probe,) = sb.load(write_csv(tmp_path / "Real_Time_Visual_Understanding.csv",
                                 streamingbench_csv_rows()))
    assert probe.id == "Real-Time Visual Understanding_sample_1_1"
    assert probe.video == "sample_1/video.mp4" and probe.options[1] == "PURPLE ELEPHANT 42."
    assert probe.extras["temporal_clue_type"] == "Concurrent"


def test_streamingbench_scores_the_first_character_and_writes_under_the_model_name(tmp_path):
    path = write_json(tmp_path / "questions_real.json", streamingbench_real())
    a, b = sb.load(path)
    results = [_result(a, "A", sb), _result(b, "C. RED FOX 9", sb)]
    fig = sb.score(results)
    assert fig["metric"] == "accuracy" and fig["score"] == 0.5
    (out,) = sb.write(results, path, tmp_path / "out")
    data = json.loads(out.read_text())
    assert [e["questions"][0][sb.MODEL_NAME] for e in data] == ["A", "C. RED FOX 9"]


def test_streamingbench_proactive_needs_time_and_output(tmp_path):
    path = write_json(tmp_path / "questions_proactive.json", streamingbench_proactive())
    (probe,) = sb.load(path)
    history = [{"role": "assistant", "content": "PURPLE ELEPHANT 42", "time": 38.0, "cost": 0}]
    right = ProbeResult(probe, 38.0, "PURPLE ELEPHANT 42", True, 0.0, None,
                        {"answered": 38.0, "dialog_history": history, "time_correct": True})
    fig = sb.score([right])
    assert fig["metric"] == "answer_accuracy" and fig["score"] == 1.0
    (out,) = sb.write([right], path, tmp_path / "out")
    record = json.loads(out.read_text())[0]["questions"][0][sb.MODEL_NAME]
    assert record == {"answered": 38.0, "dialog_history": history}


def test_ovobench_averages_per_task_then_per_split_not_pooled(tmp_path):
    path = write_json(tmp_path / "ovo_bench_new.json", ovobench())
    probes = {p.id: p for p in ovo_fmt.load(path)}
    assert sorted(probes) == ["0", "1319", "1468_0", "1468_1", "1558_0", "1558_1"]
    assert probes["1468_1"].answer == "Yes" and probes["1468_1"].ask_at == 46.0
    results = [_result(probes["0"], "B", ovo_fmt), _result(probes["1319"], "A", ovo_fmt),
               _result(probes["1468_0"], "No", ovo_fmt), _result(probes["1468_1"], "N", ovo_fmt),
               _result(probes["1558_0"], "0", ovo_fmt), _result(probes["1558_1"], "2 times", ovo_fmt)]
    fig = ovo_fmt.score(results)
    assert fig["per_task"] == {"CRR": 0.5, "EPM": 1.0, "OCR": 0.0, "REC": 0.5}
    assert fig["per_split"] == {"backward": 1.0, "realtime": 0.0, "forward": 0.5}
    assert fig["score"] == pytest.approx(0.5)  # pooled would be 3/6 too, so check the splits
    (out,) = ovo_fmt.write(results, path, tmp_path / "out")
    doc = json.loads(out.read_text())
    assert out.parent.name == "realtime-venus" and set(doc) == {"backward", "realtime", "forward"}
    assert doc["realtime"][0]["ground_truth"] == "B" and doc["realtime"][0]["response"] == "A"
    assert [i["response"] for i in doc["forward"][0]["test_info"]] == ["No", "N"]


def test_ovobench_letter_in_reply_is_the_official_rule():
    probe = Probe("ovobench", "1", "v", "q", "B", 1.0, ("x", "y"), "OCR", "realtime")
    assert ovo_fmt.correct(probe, "The answer is B") and not ovo_fmt.correct(probe, None)


def test_mlvu_dev_choice_open_and_test_set(tmp_path):
    folder = tmp_path / "json"
    write_json(folder / "2_needle.json", mlvu_dev_choice())
    write_json(folder / "8_sub_scene.json", mlvu_dev_open())
    probes = {p.id: p for p in mlvu_fmt.load(folder)}
    choice, open_ = probes["2_needle_0"], probes["8_sub_scene_0"]
    assert choice.answer == "B" and choice.options[1] == "Professor Zanzibar"
    assert open_.options == () and open_.split == "dev-open"
    assert open_.extras["scoring_points"][0].startswith("Water evaporates")
    results = [_result(choice, "B", mlvu_fmt), _result(open_, "It rained.", mlvu_fmt)]
    fig = mlvu_fmt.score(results)
    assert fig["score"] == 1.0 and fig["not_scored_offline"] == ["subPlot"]
    written = {p.name: json.loads(p.read_text()) for p in mlvu_fmt.write(results, folder,
                                                                         tmp_path / "out")}
    assert written["subplot_all.json"] == [{"video_name": "subPlot_1.mp4", "Q": open_.question,
                                            "A": open_.answer, "pred": "It rained."}]
    assert written["bench_all.json"] == {"findNeedle": 100.0, "Avg": 100.0}
    (test,) = mlvu_fmt.load(write_json(tmp_path / "test_question.json", mlvu_test()))
    assert test.id == "NQA_0" and test.answer == "" and len(test.options) == 6
    (sub,) = mlvu_fmt.write([_result(test, "C", mlvu_fmt)], tmp_path, tmp_path / "sub")
    assert json.loads(sub.read_text()) == [{"question_id": "NQA_0", "question_type": "needleQA",
                                            "option": "C"}]


def test_mlvu_answer_outside_the_candidates_is_a_damaged_file(tmp_path):
    bad = mlvu_dev_choice()
    bad[0]["answer"] = "Nobody"
    with pytest.raises(AnnotationError, match="not one of its candidates"):
        mlvu_fmt.load(write_json(tmp_path / "bad.json", bad))


def test_vnbench_counts_a_question_only_when_all_four_tries_are_right(tmp_path):
    path = write_json(tmp_path / "vnbench.json", vnbench())
    probes = vn_fmt.load(path)
    assert [p.answer for p in probes] == ["A", "D", "C", "B"]  # gt moves with the shuffle
    assert {p.group for p in probes} == {"v_lecture_ret_insert1"}
    three = [_result(p, p.answer if i else "B", vn_fmt) for i, p in enumerate(probes)]
    assert vn_fmt.score(three)["score"] == 0.0
    four = [_result(p, f"{p.answer}.", vn_fmt) for p in probes]
    assert vn_fmt.score(four) == {"metric": "overall", "score": 1.0,
                                  "per_task": {"ret_insert1": 1.0}}
    (out,) = vn_fmt.write(four, path, tmp_path / "out")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert set(rows[0]) == {"question_id", "pred", "gt", "type", "try", "prompt"}
    assert rows[0]["question_id"] == "v_lecture_ret_insert1_0"


def test_vniah_parses_the_options_in_the_prompt_and_places_one_needle_per_depth(tmp_path):
    from PIL import Image

    (tmp_path / "images").mkdir()
    Image.new("RGB", (64, 64), (200, 200, 0)).save(tmp_path / "images" / "selenium.png")
    (needle,) = vniah_fmt.load(write_json(tmp_path / "dataset.json", vniah()))
    assert needle.options == ("100 mg", "200 mg", "300 mg", "400 mg")
    assert needle.question.startswith("Find the frame") and needle.answer == "B"
    probes = vniah_fmt.needle_probes([needle], "hay.mp4", 50.0, (0.0, 0.5, 1.0))
    assert [p.evidence for p in probes] == [(0.0, 1.0), (25.0, 26.0), (49.0, 50.0)]
    results = [_result(p, r, vniah_fmt) for p, r in zip(probes, ["B", "200 mg", "b."])]
    assert [r.correct for r in results] == [True, False, True]  # exact answers only
    files = vniah_fmt.write(results, tmp_path, tmp_path / "out")
    cells = json.loads(files[0].read_text())
    assert [c["Frame Depth"] for c in cells] == [0.0, 50.0, 100.0]
    assert files[1].read_text().startswith("Average Accuracy: 0.666")


def test_a_missing_needle_image_is_one_clear_error(tmp_path):
    with pytest.raises(AnnotationError, match="images/ folder"):
        vniah_fmt.load(write_json(tmp_path / "dataset.json", vniah()))


def test_limit_keeps_groups_whole(tmp_path):
    probes = vn_fmt.load(write_json(tmp_path / "vnbench.json", vnbench()))
    assert len(select(probes, 1)) == 4 and len(select(probes, 10)) == 4


def test_wrong_file_for_a_format_is_one_clear_error(tmp_path):
    path = write_json(tmp_path / "ovo.json", ovobench())
    with pytest.raises(AnnotationError, match="not a StreamingBench file"):
        sb.load(path)
    with pytest.raises(AnnotationError, match="not a VNBench file"):
        vn_fmt.load(path)


def test_missing_videos_fail_before_any_work(tmp_path, capsys):
    path = write_json(tmp_path / "questions_real.json", streamingbench_real())
    (tmp_path / "videos").mkdir()
    code = main(["bench", "dataset", "streamingbench", "--annotations", str(path),
                 "--videos", str(tmp_path / "videos")])
    assert code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "sample_1_real.mp4" in err and "--videos" in err and "Traceback" not in err


def test_an_ambiguous_video_name_asks_for_the_subset_folder(tmp_path):
    from memory.benchmarks.runner import _Videos

    for subset in ("real", "omni"):
        (tmp_path / subset / "sample_1").mkdir(parents=True)
        (tmp_path / subset / "sample_1" / "video.mp4").write_bytes(b"")
    with pytest.raises(AnnotationError, match="pass the folder of this subset"):
        _Videos(tmp_path).find("sample_1/video.mp4")
    assert _Videos(tmp_path / "real").find("sample_1/video.mp4") == (
        tmp_path / "real" / "sample_1" / "video.mp4")
