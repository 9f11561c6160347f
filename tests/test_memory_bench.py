"""The needle benchmark: needle planning and insertion, and a 1-minute run end to end."""

from __future__ import annotations

import argparse
import json

import pytest

from memory.benchmarks.needle import KINDS, NeedleResult, _plan, insert_needles, summarize
from memory.samples import lecture_script


def test_needles_are_inserted_at_their_depths():
    script = lecture_script(5, seed=0)
    needles = _plan([0.0, 0.5, 1.0], seed=0)
    assert [n.kind for n in needles] == list(KINDS) * 3
    out = insert_needles(script, needles)
    assert len(out.slides) == len(script.slides) + 6   # a slide and a scene per depth
    assert out.slides[0].bullets == [needles[0].text]   # depth 0: first slide
    assert out.slides[1].scene == needles[2].text
    assert needles[1].text in out.slides[2].narration   # spoken needle in the next slide
    assert out.slides[-1].scene == needles[-1].text or needles[-2].text in \
        out.slides[-1].narration
    assert len(script.slides[0].narration) == len(lecture_script(5, seed=0).slides[0].narration)


def test_summary_keys_and_minimum_over_text_needles():
    needles = _plan([0.0, 1.0], seed=1)
    results = [NeedleResult(n, 1 if n.kind != "visual" else None, False) for n in needles]
    results[1].rank = 3
    s = summarize(results)
    assert s["recall_at_1"]["spoken"]["0"] == 0.0 and s["recall_at_5"]["spoken"]["0"] == 1.0
    assert s["recall_at_5_min"] == 1.0 and s["leakage"] == 0
    assert s["mrr"]["visual"] == 0.0


@pytest.mark.slow
def test_bench_memory_one_minute(tmp_path):
    from venus.bench import memory as bench
    from venus.bench.report import emit

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--minutes", "1", "--depths", "0.5,1", "--work", str(tmp_path),
                              "--hours-synthetic", "0.1"])
    args.seed = 0
    report = bench.run(args)
    doc = emit(report, json_path=str(tmp_path / "m.json"))
    for key in ("recall_at_1", "recall_at_5", "recall_at_5_min", "mrr", "leakage",
                "x_realtime", "stage_seconds", "query_ms_p50", "query_ms_p95",
                "query_ms_p95_10h", "rss_growth_mb_per_hour", "disk_mb_per_hour"):
        assert key in doc
    assert set(doc["stage_seconds"]) >= {"decode", "asr", "ocr", "embed", "index"}
    assert doc["leakage"] == 0
    assert doc["recall_at_5_min"] == 1.0
    assert json.loads((tmp_path / "m.json").read_text())["benchmark"] == "memory"
