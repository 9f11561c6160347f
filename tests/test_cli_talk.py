"""``venus talk`` and ``venus simulate``: the commands, their files and their errors."""

from __future__ import annotations

import json
import wave

import numpy as np
import pytest

from memory.samples.slides import draw_scene
from memory.video.writer import write_video
from venus.cli import main
from venus.scenario import load_scenario


def _frames(path) -> tuple[int, int]:
    with wave.open(str(path)) as fh:
        return fh.getnframes(), fh.getframerate()


def test_bad_scenarios_get_one_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"turns": [{"text": "hi"}]}))
    assert main(["simulate", str(bad)]) == 3
    assert "give exactly one of 'at'" in capsys.readouterr().err
    bad.write_text(json.dumps({"turns": [{"at": 1, "text": "hi", "volume": 3}]}))
    assert main(["simulate", str(bad)]) == 3
    assert "turns.0.volume" in capsys.readouterr().err
    bad.write_text("{not json")
    assert main(["simulate", str(bad)]) == 3
    assert "is not JSON" in capsys.readouterr().err
    assert main(["simulate", str(tmp_path / "missing.json")]) == 3
    assert "check the path" in capsys.readouterr().err


def test_simulate_prints_the_schema(capsys):
    assert main(["simulate", "--schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "turns" in schema["properties"] and "Turn" in schema["$defs"]
    assert main(["simulate"]) == 3
    assert "give a scenario file" in capsys.readouterr().err


def test_talk_rejects_a_malformed_say(capsys):
    assert main(["talk", "whatever.mp4", "--say", "soon: hello"]) == 3
    assert "is not T:TEXT" in capsys.readouterr().err


def test_scenario_video_path_is_relative_to_the_file(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"video": "v.mp4", "turns": []}))
    assert load_scenario(tmp_path / "s.json").video == str(tmp_path / "v.mp4")


@pytest.mark.slow
def test_simulate_writes_aligned_wavs_and_the_timeline(tmp_path, capsys):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({
        "name": "cli", "notes": [{"start": 0, "end": 30, "text": "Leaves make sugar from sunlight."}],
        "tail_s": 5, "turns": [{"at": 1.0, "text": "What do leaves make from sunlight?"}]}))
    out = tmp_path / "out"
    assert main(["simulate", str(scenario), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "user       What do leaves make" in printed and "assistant  " in printed
    n_in, sr_in = _frames(out / "input.wav")
    n_out, sr_out = _frames(out / "output.wav")
    assert (n_in, sr_in) == (n_out, sr_out) and sr_in == 16000 and n_in % 16000 == 0
    lines = (out / "timeline.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "SessionStarted"
    assert json.loads(lines[-1])["type"] == "SessionEnded"


@pytest.mark.slow
def test_talk_on_a_video_in_simulated_time(tmp_path, capsys):
    video = write_video(tmp_path / "v.mp4", [draw_scene("forest", (160, 120))] * 12, fps=1.0,
                        audio=np.zeros(12 * 16000, np.float32))
    code = main(["talk", str(video), "--simulated", "--mode", "audio",
                 "--say", "2:Can you set a timer for three seconds?"])
    assert code == 0
    out = capsys.readouterr()
    assert "delegate   request set_timer {'seconds': 3.0" in out.out
    assert "delivered" in out.out and "ended: source ended" in out.err
