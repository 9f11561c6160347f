"""``venus bench library`` at a small size: its figures under the keys BENCHMARKS.md names."""

from __future__ import annotations

import json

import pytest

from venus.cli import main


def test_bench_library_small(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "library", "--hours", "2", "--video-hours", "0.5", "--queries",
                 "20", "--work", str(tmp_path / "work"), "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    for key in ("hours", "vectors", "query_ms_p50", "query_ms_p95", "recall_at_10", "index",
                "ram_mb_per_hour", "disk_mb_per_hour", "build_s"):
        assert key in figures, key
    assert figures["hours"] == pytest.approx(2.0)
    assert figures["index"] == "exact" and figures["recall_at_10"] == pytest.approx(1.0)
    assert figures["ram_mb_per_hour"] > 0 and figures["disk_mb_per_hour"] > 0


@pytest.mark.slow
def test_bench_library_ingest_one_and_two_workers(tmp_path):
    out = tmp_path / "ingest.json"
    assert main(["bench", "library", "--ingest", "2", "--minutes", "0.5", "--subtitles",
                 "--no-ray", "--work", str(tmp_path / "work"), "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    runs = figures["ingest_runs"]
    assert set(runs) == {"1", "2"} and figures["ingest_videos"] == 2
    assert all(r["videos"] == 2 and r["runner"] == "process pool" and r["wall_s"] > 0
               for r in runs.values())
    assert figures["ingest_same_segments"] and runs["1"]["segments"] > 0
    assert figures["ingest_speedup"]["2"] == pytest.approx(runs["1"]["wall_s"]
                                                            / runs["2"]["wall_s"])
