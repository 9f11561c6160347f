"""`venus bench duplex` end to end (n=1 per subset) and the FDB folders it leaves."""

from __future__ import annotations

import json

import numpy as np
import pytest

from venus.cli import main
from venus.eval.fdb import OVERLAP_SUBSETS, read_meta, read_wav, sample_dirs

pytestmark = pytest.mark.slow

KEYS = ("n", "interruption_response", "continuation_backchannel", "continuation_other",
        "continuation_background", "proxy", "tor", "max_silence_s", "stop_latency_s_p50",
        "response_latency_s_p50", "voice_family")


def test_bench_duplex_writes_fdb_folders_and_the_stable_keys(tmp_path, capsys):
    root, out = tmp_path / "fdb", tmp_path / "duplex.json"
    assert main(["bench", "duplex", "--n", "1", "--workers", "1", "--out", str(root),
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "strict listener rule from output.wav" in printed
    assert "strict (output.wav)" in printed and "proxy (decision log)" in printed
    assert "Realtime-Venus (paper)" in printed and "GPT-4o (paper)" in printed
    doc = json.loads(out.read_text())
    assert all(k in doc for k in KEYS) and doc["n"] == 1 and doc["seed"] == 0
    assert set(doc["proxy"]) == set(KEYS[1:5])
    assert set(doc["tor"]) == set(doc["max_silence_s"]) == set(OVERLAP_SUBSETS)
    for subset in OVERLAP_SUBSETS:
        [folder] = sample_dirs(root, subset)
        names = {p.name for p in folder.iterdir()}
        assert {"input.wav", "clean_input.wav", "metadata.json", "output.wav", "clean_output.wav",
                "output.json", "clean_output.json", "timeline.jsonl"} <= names
        inp, clean = read_wav(folder / "input.wav"), read_wav(folder / "clean_input.wav")
        assert len(inp) == len(clean) == len(read_wav(folder / "output.wav")) == len(read_wav(folder / "clean_output.wav"))
        meta = read_meta(folder)
        start, end = meta.timestamps
        a, b = int(start * 16000), int(end * 16000)
        assert np.abs(inp[a:b] - clean[a:b]).max() > 1e-3  # the overlap is there ...
        # ... and only there: the timestamps mark its voice, which a synthesizer may pad
        # with up to 0.24 s of near-silence (Flite), and a background with room noise
        pad = a - int(0.25 * 16000)
        assert np.abs(inp[:pad] - clean[:pad]).max() < 1e-3
        s0, s1 = meta.venus["assistant_speech"]
        assert s0 <= start < s1  # placed while the assistant speaks
        transcript = json.loads((folder / "output.json").read_text())
        assert transcript["source"] == "self" and transcript["text"]
        assert all(set(c) == {"text", "timestamp"} and c["timestamp"][0] <= c["timestamp"][1]
                   for c in transcript["chunks"])
    assert (sample_dirs(root, "user_interruption")[0] / "interrupt.json").exists()

    assert main(["eval", "score", str(root)]) == 0
    scored = capsys.readouterr().out
    assert "user_backchannel" in scored and "strict (output.wav)" in scored
    assert "proxy (decision log)" in scored


def test_held_out_speaks_only_the_held_out_family(tmp_path):
    root, out = tmp_path / "held", tmp_path / "held.json"
    assert main(["bench", "duplex", "--n", "1", "--held-out", "--workers", "1", "--out", str(root),
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["seed"] == 2027 and doc["voice_family"] == "flite"
    for subset in OVERLAP_SUBSETS:
        for folder in sample_dirs(root, subset):
            meta = read_meta(folder).venus
            assert meta["user_family"] == meta["overlap_family"] == "flite"
    assert json.loads((root / "notes.json").read_text())  # the notes the answers came from


def test_v1_sets_are_written_run_and_scored(tmp_path, capsys):
    root = tmp_path / "v1"
    assert main(["eval", "synth", str(root), "--n", "1",
                 "--subsets", "pause_handling,smooth_turn_taking"]) == 0
    for subset, task in (("pause_handling", "pause.json"), ("smooth_turn_taking", "turn_taking.json")):
        [folder] = sample_dirs(root, subset)
        [entry] = json.loads((folder / task).read_text())
        assert len(entry["timestamp"]) == 2
        if subset == "pause_handling":  # the timestamps are the pause inside the question
            pause = read_wav(folder / "input.wav")[int(entry["timestamp"][0] * 16000) + 800:
                                                   int(entry["timestamp"][1] * 16000) - 800]
            assert np.abs(pause).max() < 1e-3
    for subset in OVERLAP_SUBSETS:
        assert not sample_dirs(root, subset)  # only the subsets asked for
    assert main(["eval", "synth", str(root), "--subsets", "nope"]) == 3  # one clear error
    [turn] = sample_dirs(root, "smooth_turn_taking")
    notes = tmp_path / "notes.json"  # what the assistant knows, from elsewhere
    notes.write_text(json.dumps([{"start": 0, "end": 30, "text": "Leaves make sugar from sunlight, "
                                  "roots take up water from the soil and bees help plants make "
                                  "seeds, as the Calvin notes say."}]))
    assert main(["eval", "run", str(root), "--notes", str(notes)]) == 0
    assert "Calvin" in json.loads((turn / "output.json").read_text())["text"]
    assert (turn / "clean_output.wav").read_bytes() == (turn / "output.wav").read_bytes()
    assert main(["eval", "score", str(root)]) == 0
    out = capsys.readouterr().out
    assert "pause_handling" in out and "smooth_turn_taking" in out
