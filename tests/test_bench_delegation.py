"""`venus bench delegation` on two scripts: the figures it reports and their stable keys."""

from __future__ import annotations

import json

import pytest

from venus.cli import main

pytestmark = pytest.mark.slow


def test_bench_delegation_on_two_scripts(tmp_path, capsys):
    out = tmp_path / "delegation.json"
    assert main(["bench", "delegation", "--scripts", "summary-then-quick,timer-over-user",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    for key in ("n", "missed", "unnecessary", "stale_spoken", "delivered_while_user_speaking",
                "max_silence_s", "request_to_result_s_p50"):
        assert key in doc
    assert doc["n"] == 4 and doc["sessions"] == 2
    assert doc["missed"] == 0 and doc["unnecessary"] == 0
    assert doc["stale_spoken"] == 0 and doc["delivered_while_user_speaking"] == 0
    assert doc["max_silence_s"] is not None and doc["max_silence_s"] <= 2.0
    assert "missed" in capsys.readouterr().out
