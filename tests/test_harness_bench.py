"""``venus bench harness`` at a small size: it runs, reports the stable keys, loses nothing."""

from __future__ import annotations

import json

from venus.cli import main


def test_bench_harness_small(tmp_path, capsys):
    path = tmp_path / "harness.json"
    assert main(["bench", "harness", "--items", "120", "--sessions", "6",
                 "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "lost 0, double 0, cross-session 0 (OK)" in out
    doc = json.loads(path.read_text())
    for key in ("items", "sessions", "lost", "double_delivered", "cross_session",
                "dispatch_ms_p50", "dispatch_ms_p99", "items_per_s", "machine", "seed"):
        assert key in doc
    assert (doc["items"], doc["sessions"]) == (120, 6)
    assert doc["lost"] == doc["double_delivered"] == doc["cross_session"] == 0
    assert doc["delivered"] + doc["cancelled"] == 120
    assert doc["cancelled"] >= 1  # the injected cancels happened
