"""``venus watch`` on a real generated lecture: alerts as they happen, the JSON shape, a
kept memory reused, and alerts that the benchmark's rule counts right."""

from __future__ import annotations

import json

import pytest

from memory.benchmarks.proactive import Alert, WatchRequest, event_time, score
from venus.cli import main


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    from memory.samples import make_lecture

    files = make_lecture(1.0, 0, tmp_path_factory.mktemp("lecture"), subtitles=True)
    return files.video, files.truth


def test_watch_prints_alerts_and_writes_the_json_the_issue_names(lecture, tmp_path, capsys):
    video, truth = lecture
    second = truth["slides"][1]["title"]
    out = tmp_path / "alerts.json"
    request = f"tell me when the slide about {second} comes up"
    code = main(["watch", str(video), "--when", request, "--when", "chess", "--json",
                 str(out), "--memory", str(tmp_path / "mem")])
    assert code == 0
    printed = capsys.readouterr().out
    assert "(never) chess" in printed and "on screen" in printed
    data = json.loads(out.read_text())
    assert set(data) == {"video_seconds", "alerts"} and data["video_seconds"] >= 55
    [alert] = data["alerts"]
    assert set(alert) == {"request", "video_time", "evidence"}
    assert set(alert["evidence"]) == {"start", "end", "text"}
    assert alert["request"].startswith("tell me when the slide about")
    assert alert["video_time"] >= alert["evidence"]["start"]
    # the benchmark's rule: right, and within a few seconds of the slide's showing
    req = WatchRequest(alert["request"], second, "slide", 0.0,
                       event_time(truth, second, 0.0, shown_only=True))
    ev = alert["evidence"]
    s = score(truth, [req], [Alert(0, ev["start"], ev["end"], alert["video_time"], ev["text"])])
    assert s.recall == 1.0 and s.precision == 1.0 and s.delays[0] <= 3.0

    # a kept memory is reused: the same alerts, nothing ingested again
    again = tmp_path / "again.json"
    assert main(["watch", "--memory", str(tmp_path / "mem"), "--when",
                 f"tell me when the slide about {second} comes up", "--when", "chess",
                 "--json", str(again)]) == 0
    assert json.loads(again.read_text()) == data


def test_watch_names_the_fix_for_a_missing_video(tmp_path, capsys):
    assert main(["watch", str(tmp_path / "nope.mp4"), "--when", "x"]) == 3
    assert "no video at" in capsys.readouterr().err
    assert main(["watch", "--memory", str(tmp_path / "empty"), "--when", "x"]) == 3
    assert "give a VIDEO" in capsys.readouterr().err
    assert not (tmp_path / "empty").exists()  # nothing made on the way to the error
