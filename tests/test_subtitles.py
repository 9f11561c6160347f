"""Subtitles: side-car .srt/.vtt and a track inside the container, read by the real
decoder, used as the transcript where they run (ASR covers the rest), with each word's
source kept in the memory; and the subtitled sample lecture answering exactly."""

from __future__ import annotations

import numpy as np
import pytest

from memory import VideoMemory
from memory.errors import SubtitleError
from memory.media import SAMPLE_RATE, Cue
from memory.video import open_video, write_video
from memory.video.subtitles import find_subtitles, read_subtitles, write_srt

SRT = """1
00:00:00,500 --> 00:00:02,000
Hello <i>world</i>

2
00:00:02,500 --> 00:00:04,250
The pH scale runs
from zero to fourteen.
"""

VTT = """WEBVTT

00:00:00.500 --> 00:00:02.000
Hello <b>world</b>

00:00:02.500 --> 00:00:04.250
The pH scale runs from zero to fourteen.
"""

CUES = (Cue(0.5, 2.0, "Hello world"), Cue(2.5, 4.25, "The pH scale runs from zero to fourteen."))


def _clip(path, seconds=6, audio=None):
    frames = [np.full((90, 160, 3), 128, np.uint8)] * (seconds * 5)
    if audio is None:
        audio = np.zeros(seconds * SAMPLE_RATE, np.float32)
    return write_video(path, frames, 5, audio)


@pytest.mark.parametrize("suffix,text", [(".srt", SRT), (".vtt", VTT)])
def test_a_sidecar_is_read_and_each_cue_rides_on_the_chunk_it_starts_in(tmp_path, suffix, text):
    video = _clip(tmp_path / "talk.mp4")
    (tmp_path / f"talk{suffix}").write_text(text)
    assert read_subtitles(tmp_path / f"talk{suffix}") == CUES
    with open_video(video) as source:
        cues = {c.index: c.cues for c in source}
    assert cues[0] == CUES[:1] and cues[2] == CUES[1:]
    assert sum(len(c) for c in cues.values()) == 2
    with open_video(video, subtitles=False) as source:
        assert all(not c.cues for c in source)


def test_a_language_tagged_sidecar_is_found_and_an_explicit_one_wins(tmp_path):
    video = _clip(tmp_path / "talk.mp4")
    (tmp_path / "talk.de.srt").write_text(SRT.replace("Hello", "Hallo"))
    (tmp_path / "talk.en.srt").write_text(SRT)
    assert find_subtitles(str(video)) == tmp_path / "talk.en.srt"
    other = write_srt(tmp_path / "mine.srt", [Cue(1.0, 2.0, "Only this")])
    with open_video(video, subtitles=other) as source:
        assert [cue for c in source for cue in c.cues] == [Cue(1.0, 2.0, "Only this")]


def test_a_bad_subtitle_file_is_one_clear_error(tmp_path):
    video = _clip(tmp_path / "talk.mp4")
    with pytest.raises(SubtitleError, match="no subtitle file at"):
        open_video(video, subtitles=tmp_path / "nope.srt")
    junk = tmp_path / "junk.srt"
    junk.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(SubtitleError, match="junk.srt"):
        open_video(video, subtitles=junk)


def test_an_embedded_text_track_is_read(tmp_path):
    import av

    video = _clip(tmp_path / "talk.mp4")
    (tmp_path / "cues.srt").write_text(SRT)
    muxed = tmp_path / "talk.mkv"
    with av.open(str(video)) as v, av.open(str(tmp_path / "cues.srt")) as s, \
            av.open(str(muxed), "w") as out:
        streams = {id(st): out.add_stream_from_template(st) for st in
                   (*v.streams, s.streams.subtitles[0])}
        for container in (v, s):
            for packet in container.demux():
                if packet.dts is None:
                    continue
                packet.stream = streams[id(packet.stream)]
                out.mux(packet)
    with open_video(muxed) as source:
        got = [cue for c in source for cue in c.cues]
    assert [c.text for c in got] == [c.text for c in CUES]
    assert [round(c.start, 2) for c in got] == [0.5, 2.5]


def _speech(text: str) -> np.ndarray:
    from memory.models.tts import EspeakSynthesizer

    return EspeakSynthesizer().synthesize(text).audio


@pytest.mark.slow
def test_subtitles_are_the_transcript_where_they_run_and_asr_hears_the_rest(tmp_path):
    audio = np.zeros(16 * SAMPLE_RATE, np.float32)
    first, second = _speech("Acids donate protons."), _speech("Water evaporates and falls as rain.")
    audio[SAMPLE_RATE: SAMPLE_RATE + len(first)] = first
    audio[9 * SAMPLE_RATE: 9 * SAMPLE_RATE + len(second)] = second
    video = _clip(tmp_path / "talk.mp4", 16, audio)
    said = 1.0 + len(first) / SAMPLE_RATE
    write_srt(tmp_path / "talk.srt", [Cue(1.0, said, "Acids donate protons (H+ ions).")])
    mem = VideoMemory.create(tmp_path / "mem")
    mem.ingest(video)
    words = [w for c in mem.db.all_chunks() for w in c.words]
    subtitled = [w.text for w in words if w.source == "subtitles"]
    heard = " ".join(w.text for w in words if w.source == "asr").lower()
    assert subtitled == "Acids donate protons (H+ ions).".split()
    assert "rain" in heard and "protons" not in heard  # Whisper never re-heard the cue
    mem.close()


@pytest.mark.slow
def test_the_subtitled_sample_lecture_answers_in_its_exact_words(tmp_path, capsys):
    import json

    from memory.samples.topics import QUESTIONS
    from venus.cli import main

    out = tmp_path / "lecture"
    assert main(["sample", "lecture", "--minutes", "1", "--subtitles", "--out", str(out)]) == 0
    assert (out / "lecture.srt").is_file()
    truth = json.loads((out / "lecture.json").read_text())
    mem = VideoMemory.create(tmp_path / "mem")
    mem.ingest(out / "lecture.mp4")
    words = [w for c in mem.db.all_chunks() for w in c.words]
    assert words
    assert [w for w in words if w.source != "subtitles"] == []
    spoken = " ".join(w.text for w in words)
    assert spoken == " ".join(s["text"] for s in truth["sentences"])
    slide = truth["slides"][0]
    sentences = [s["text"] for s in truth["sentences"] if s["slide"] == 0]
    answer = mem.answer(QUESTIONS[slide["title"]], at=mem.duration)
    assert any(s.rstrip(".") in answer.text for s in sentences), answer.text
    mem.close()
