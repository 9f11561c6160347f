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
