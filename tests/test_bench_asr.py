"""`venus bench asr` end to end: both embedded Whispers on both lectures, in one run."""

import json

import pytest

from venus.cli import main

pytestmark = pytest.mark.slow


def test_bench_asr_prints_wer_and_speed_per_model(tmp_path, capsys):
    out = tmp_path / "asr.json"
    assert main(["bench", "asr", "--minutes", "0.4", "--work", str(tmp_path / "w"),
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    figures = json.loads(out.read_text())
    assert set(figures["wer"]) == set(figures["x_realtime"]) == {"tiny.en", "base"}
    assert "Whisper" in figures["normalizer"]
    assert set(figures["by_lecture"]["base"]) == {"sample", "other-voice"}
    for model in ("tiny.en", "base"):
        assert 0.0 <= figures["wer"][model] < 0.6 and figures["x_realtime"][model] > 0
        assert f"{model}: WER" in printed
