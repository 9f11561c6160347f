"""`venus bench voice`: the figures it reports and their stable keys (eSpeak NG here, so
it is quick; the real figures are Piper's, printed by the command)."""

from __future__ import annotations

import json

from venus.bench.voice import REPLIES
from venus.cli import main


def test_bench_voice_reports_the_real_time_factor_and_first_audio(tmp_path, capsys):
    out = tmp_path / "voice.json"
    assert main(["bench", "voice", "--voice", "espeak", "--rounds", "1", "--poll-ms", "2",
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    for key in ("tts_rtf", "first_audio_ms_p50", "first_audio_ms_p95", "start_ms_p50",
                "caller_ms_max", "load_avg_1m", "voice"):
        assert key in doc
    assert doc["replies"] == len(REPLIES) and doc["pieces"] > len(REPLIES)
    assert 0 < doc["tts_rtf"] < 1 and "eSpeak NG" in doc["voice"]
    assert 0 < doc["first_audio_ms_p50"] <= doc["first_audio_ms_p95"]
    printed = capsys.readouterr().out
    assert "real-time factor" in printed and "first audio" in printed
