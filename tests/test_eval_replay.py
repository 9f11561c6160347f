"""Replay is byte-identical (issue 11's "Done when"): the same tuning-seed sample and the
same scenario, each run twice through the whole assistant (Silero VAD, Whisper and its
word probe, eSpeak, the embedded frontend, the overlap gate) in simulated time, in one
process, give the same ``timeline.jsonl``, ``output.wav`` and ``output.json`` bytes."""

from __future__ import annotations

import shutil

import pytest

from venus.eval.runner import run_sample
from venus.eval.synth import synthesize_index
from venus.scenario import parse_scenario, run_scenario

pytestmark = pytest.mark.slow

OUTPUTS = ("timeline.jsonl", "output.wav", "output.json")


def test_a_tuning_seed_interruption_replays_byte_identically(tmp_path):
    [first] = synthesize_index(tmp_path / "a", 0, 0, subsets=("user_interruption",))
    second = tmp_path / "b" / first.relative_to(tmp_path / "a")
    shutil.copytree(first, second)
    run_sample(first)
    run_sample(second)
    timeline = (first / "timeline.jsonl").read_text()
    assert "OverlapClassified" in timeline and "yield_floor" in timeline  # the gate worked
    for name in OUTPUTS:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_a_scenario_replays_byte_identically(tmp_path):
    doc = {"name": "replay",
           "notes": [{"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a "
                                                     "process called photosynthesis."},
                     {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil."}],
           "turns": [{"at": 1.0, "text": "What do leaves make from sunlight?"},
                     {"after_assistant": 1.5, "text": "Mm-hmm.", "label": "backchannel"},
                     {"after_assistant": 3.5, "text": "Wait, what do the roots do?",
                      "label": "interruption"}]}
    for out in ("a", "b"):
        run_scenario(parse_scenario(doc), tmp_path / out)
    for name in ("timeline.jsonl", "output.wav", "input.wav"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
