"""``venus bench decode`` end to end through the CLI on a short real file."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from memory.video import write_video
from venus.cli import main

STABLE_KEYS = {"decoder", "video_seconds", "seconds", "x_realtime", "peak_rss_mb"}


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    frames = (np.full((36, 64, 3), 5 * i, np.uint8) for i in range(30))
    audio = np.zeros(3 * SAMPLE_RATE, np.float32)
    return write_video(tmp_path_factory.mktemp("bench") / "clip.mp4", frames, 10, audio)


def test_bench_decode_prints_a_table_and_writes_the_stable_keys(clip, tmp_path, capsys):
    both = importlib.util.find_spec("decord") is not None
    out = tmp_path / "decode.json"
    rc = main(["bench", "decode", str(clip), "--fps", "2", "--json", str(out),
               "--decoder", "both" if both else "pyav"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert STABLE_KEYS <= doc.keys()
    assert doc["benchmark"] == "decode" and doc["decoder"] == "pyav"
    assert doc["video_seconds"] == 3.0 and doc["chunks"] == 3 and doc["frames"] == 6
    assert doc["seconds"] > 0 and doc["x_realtime"] == pytest.approx(3.0 / doc["seconds"], rel=0.05)
    assert doc["peak_rss_mb"] > 10
    assert {"machine", "versions", "seed"} <= doc.keys()
    printed = capsys.readouterr().out
    assert "x_realtime" in printed and "real time" in printed.splitlines()[-1]
    if both:
        assert set(doc["decoders"]) == {"pyav", "decord"}
        assert doc["decoders"]["decord"]["chunks"] == 3
        assert doc["ratio_decord_to_pyav"] > 0 and "pyav's time" in printed


def test_bench_decode_on_a_missing_file_is_one_line(tmp_path, capsys):
    rc = main(["bench", "decode", str(tmp_path / "missing.mp4")])
    assert rc == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no video file at" in err[0]
