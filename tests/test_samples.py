"""The synthetic lecture: deterministic content, correct timing, a real decodable MP4."""

import av
import numpy as np
import pytest

from memory.samples import SCENES, LectureScript, Slide, lecture_script, make_lecture, render_lecture
from memory.samples.slides import draw_scene
from venus.cli import main


def test_script_is_deterministic_and_slides_last_20_to_90_seconds():
    a, b = lecture_script(10, seed=3), lecture_script(10, seed=3)
    assert a == b
    assert lecture_script(10, seed=4) != a
    assert all(20 <= s.min_seconds <= 90 for s in a.slides)
    assert len({s.title for s in a.slides}) == len(a.slides)  # titles stay distinct


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    return make_lecture(1.0, seed=1, out_dir=tmp_path_factory.mktemp("lecture"))


def test_lecture_mp4_matches_its_ground_truth(lecture):
    truth = lecture.truth
    with av.open(str(lecture.video)) as c:
        kinds = sorted(s.type for s in c.streams)
        assert kinds == ["audio", "video"]
        assert c.streams.video[0].codec_context.name == "h264"
        assert c.streams.audio[0].codec_context.name == "aac"
        assert abs(c.duration / 1e6 - truth["duration"]) < 0.5
    spans = [(s["start"], s["end"]) for s in truth["slides"]]
    assert spans[0][0] == 0 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(20 <= e - s <= 90 for s, e in spans[:-1])
    for sent in truth["sentences"]:
        slide = truth["slides"][sent["slide"]]
        assert slide["start"] <= sent["start"] < sent["end"] <= slide["end"]


def test_narration_is_audible_exactly_where_the_truth_says(lecture):
    truth = lecture.truth
    with av.open(str(lecture.video)) as c:
        rs = av.AudioResampler(format="flt", layout="mono", rate=16000)
        audio = np.concatenate([f.to_ndarray().reshape(-1) for fr in c.decode(audio=0)
                                for f in rs.resample(fr)])
    sent = truth["sentences"][0]
    inside = audio[int((sent["start"] + 0.2) * 16000): int((sent["end"] - 0.2) * 16000)]
    before = audio[: int(0.8 * 16000)]
    assert np.sqrt(np.mean(inside**2)) > 10 * (np.sqrt(np.mean(before**2)) + 1e-4)


def test_make_lecture_reuses_existing_files(lecture):
    mtime = lecture.video.stat().st_mtime_ns
    again = make_lecture(1.0, seed=1, out_dir=lecture.video.parent)
    assert again.video.stat().st_mtime_ns == mtime


def test_scene_slides_have_no_text_and_custom_scripts_render(tmp_path):
    script = LectureScript("Needles", [Slide("Intro", ["one"], ["Hello there."], min_seconds=3),
                                       Slide(scene="sunset", narration=[], min_seconds=3)])
    files = render_lecture(script, tmp_path)
    truth = files.truth
    assert truth["slides"][1]["scene"] == "sunset" and truth["duration"] == 6
    for name in SCENES:
        img = draw_scene(name, (320, 180))
        assert img.shape == (180, 320, 3) and img.std() > 10
    with pytest.raises(ValueError, match="unknown scene"):
        draw_scene("volcano", (10, 10))


def test_cli_sample_lecture(tmp_path, capsys):
    assert main(["sample", "lecture", "--minutes", "0.3", "--out", str(tmp_path)]) == 0
    assert "lecture.mp4" in capsys.readouterr().out
    assert (tmp_path / "lecture.json").exists()


@pytest.mark.slow
def test_the_sample_can_be_narrated_by_piper_and_auto_reuses_what_is_there(tmp_path):
    from memory.models.voices import piper_missing

    if piper_missing():
        pytest.skip(piper_missing())
    files = make_lecture(0.5, 0, tmp_path / "piper", narrator="piper")
    assert files.truth["narrator"] == "piper" and files.video.stat().st_size > 10_000
    again = make_lecture(0.5, 0, tmp_path / "piper", narrator="auto")  # reused, not redone
    assert again.video.stat().st_mtime == files.video.stat().st_mtime
    with pytest.raises(ValueError, match="unknown narrator"):
        make_lecture(0.5, 0, tmp_path / "x", narrator="festival")
