"""FDB folder format and the offline scorer's rules, on hand-built data (no models)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from venus.errors import ConfigError
from venus.eval.fdb import (
    SampleMeta,
    TranscriptWord,
    read_meta,
    read_transcript,
    read_wav,
    transcript_doc,
    write_json,
    write_meta,
    write_wav,
)
from venus.eval.score import (
    SampleScore,
    interruption_misses,
    judge_proxy,
    only_old_answer,
    paper_table,
    subset_figures,
    turn_over,
)
from venus.eval.synth import HELD_OUT_SEED, TUNING_SEED, draw_spec, speech_regions


def test_transcript_schema_is_fdbs_and_marked_self(tmp_path):
    words = [TranscriptWord("Leaves", 1.0, 1.3), TranscriptWord("make", 1.35, 1.6)]
    doc = transcript_doc(words)
    assert doc == {"text": "Leaves make", "source": "self",
                   "chunks": [{"text": "Leaves", "timestamp": [1.0, 1.3]},
                              {"text": "make", "timestamp": [1.35, 1.6]}]}
    write_json(tmp_path / "output.json", doc)
    assert read_transcript(tmp_path / "output.json") == words


def test_metadata_keys_and_v1_task_file(tmp_path):
    meta = SampleMeta("What is photosynthesis?", "Wait, what about roots?", [4.2, 5.9], {"seed": 0})
    write_meta(tmp_path, "user_interruption", meta)
    doc = json.loads((tmp_path / "metadata.json").read_text())
    assert list(doc)[:3] == ["context_text", "current_turn_text", "timestamps"]
    assert json.loads((tmp_path / "interrupt.json").read_text()) == [
        {"context": "What is photosynthesis?", "interrupt": "Wait, what about roots?",
         "timestamp": [4.2, 5.9]}]
    assert read_meta(tmp_path) == meta
    write_meta(tmp_path, "user_backchannel", meta)  # v1.5-only subsets write no task file
    assert not (tmp_path / "backchannel.json").exists()


def test_wav_round_trip_and_wrong_rate(tmp_path):
    audio = (np.sin(np.arange(SAMPLE_RATE) / 10) * 0.5).astype(np.float32)
    back = read_wav(write_wav(tmp_path / "a.wav", audio))
    assert len(back) == SAMPLE_RATE and np.max(np.abs(back - audio)) < 1e-4
    write_wav(tmp_path / "b.wav", audio, sample_rate=8000)
    with pytest.raises(ConfigError, match="16 kHz mono"):
        read_wav(tmp_path / "b.wav")
    with pytest.raises(ConfigError, match="metadata.json"):
        read_meta(tmp_path)


def test_turn_over_follows_fdb_v1_rule():
    w = lambda t, s, e: TranscriptWord(t, s, e)
    assert turn_over([], 2.0) == (False, None)
    # three words in under a second: not a turn
    assert turn_over([w("a", 3, 3.2), w("b", 3.2, 3.4), w("c", 3.4, 3.6)], 2.0) == (False, None)
    # four words: a turn, latency from the overlap end
    assert turn_over([w("a", 3, 3.1), w("b", 3.1, 3.2), w("c", 3.2, 3.3), w("d", 3.3, 3.4)], 2.0) == (True, 1.0)
    # two words spanning a second: a turn; words before `after` are ignored
    assert turn_over([w("x", 0, 1), w("a", 2.5, 2.8), w("b", 3.2, 3.5)], 2.0) == (True, 0.5)
    # a window end (pause handling) drops the later words
    assert turn_over([w("a", 2.5, 2.8), w("b", 3.2, 3.5)], 2.0, before=3.0) == (False, None)


def _timeline(path, events):
    lines = [json.dumps({"session_id": "s", "seq": i, "time": t, "type": k, "event": e})
             for i, (t, k, e) in enumerate(events)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_judge_proxy_labels(tmp_path):
    answer = [TranscriptWord(x, 3 + i * 0.3, 3.2 + i * 0.3) for i, x in enumerate(["leaves", "make", "sugar", "from", "light"])]
    queued = (3.0, "SpeechQueued", {"utterance_id": "u1", "text": "leaves make sugar from light"})
    stop = (6.0, "SpeechStopped", {"utterance_id": "u1", "heard_fraction": 0.5, "reason": "yield"})
    reply = (8.0, "SpeechQueued", {"utterance_id": "u2", "text": "roots take up water"})
    roots = [TranscriptWord("roots", 8.2, 8.5)]
    path = tmp_path / "t.jsonl"
    assert judge_proxy(_timeline(path, [queued, stop, reply]), 4.0, answer[:3] + roots) == "RESPOND"
    assert judge_proxy(_timeline(path, [queued]), 4.0, answer) == "RESUME"
    assert judge_proxy(_timeline(path, [queued, stop]), 4.0, answer[:3]) == "STOP"
    assert judge_proxy(_timeline(path, [queued, reply]), 4.0, answer + roots) == "OTHER"
    # words it had not queued before the onset are not a continuation
    assert judge_proxy(_timeline(path, [queued]), 4.0, answer + roots) == "OTHER"
    # punctuation as the output speaks it ("At 0:00, Leaves ...") still matches
    said = (3.0, "SpeechQueued", {"utterance_id": "u1", "text": "At 0:00, Leaves make sugar."})
    spoken = [TranscriptWord("0:00,", 4.1, 4.3), TranscriptWord("Leaves", 4.4, 4.6),
              TranscriptWord("sugar.", 5.0, 5.3)]
    assert judge_proxy(_timeline(path, [said]), 4.0, spoken) == "RESUME"
    end = (20.0, "SpeechStopped", {"utterance_id": "u1", "heard_fraction": 1.0, "reason": "session ended"})
    assert judge_proxy(_timeline(path, [queued, end]), 4.0, answer) == "RESUME"


def test_a_reply_that_asks_to_say_it_again_is_counted_apart(tmp_path):
    from venus.eval.score import clarified
    from venus.frontend.embedded import CLARIFY

    path = tmp_path / "t.jsonl"
    old = (3.0, "SpeechQueued", {"utterance_id": "u1", "text": CLARIFY})  # before the onset
    ask = (8.0, "SpeechQueued", {"utterance_id": "u2", "text": CLARIFY})
    reply = (8.0, "SpeechQueued", {"utterance_id": "u2", "text": "roots take up water"})
    assert clarified(_timeline(path, [old, ask]), 4.0)
    assert not clarified(_timeline(path, [old, reply]), 4.0)
    scores = [_score("user_interruption", "RESPOND", None, True, 0.0),
              replace(_score("user_interruption", "RESPOND", None, True, 0.0), clarified=True)]
    assert subset_figures(scores)["clarified"] == 1


def test_going_back_to_the_old_answer_is_no_reply():
    w = lambda t, s: TranscriptWord(t, s, s + 0.3)
    clean = [w(x, 3 + i * 0.4) for i, x in enumerate(["At", "0:00,", "Leaves", "make", "sugar", "from", "sunlight."])]
    resumed = [w("sugar", 8.0), w("from", 8.4), w("sunlight.", 8.8)]
    assert only_old_answer(resumed, clean, 8.0)  # paused, then the same answer went on
    reply = [w("At", 8.0), w("0:30,", 8.3), w("Roots", 8.6), w("take", 8.9)]
    assert not only_old_answer(reply, clean, 8.0)
    assert not only_old_answer(resumed, clean, 12.0)  # nothing heard there at all


def test_seeded_draws_are_stable_and_seeds_differ():
    assert draw_spec(TUNING_SEED, 3) == draw_spec(TUNING_SEED, 3)
    tuning = [draw_spec(TUNING_SEED, i) for i in range(20)]
    held = [draw_spec(HELD_OUT_SEED, i) for i in range(20)]
    assert tuning != held
    for s in tuning + held:
        assert -25 <= s.background_db <= -10 and s.background_voice != s.voice


def test_speech_regions_merge_short_gaps():
    audio = np.zeros(3 * SAMPLE_RATE, np.float32)
    audio[int(0.5 * SAMPLE_RATE):SAMPLE_RATE] = 0.1
    audio[int(1.2 * SAMPLE_RATE):int(1.5 * SAMPLE_RATE)] = 0.1  # 0.2 s gap: merged
    audio[int(2.5 * SAMPLE_RATE):int(2.8 * SAMPLE_RATE)] = 0.1  # 1 s gap: separate
    regions = speech_regions(audio)
    assert [(round(a, 2), round(b, 2)) for a, b in regions] == [(0.5, 1.5), (2.5, 2.8)]


def _score(subset, proxy, resume, respond, silence, stop=0.4, response=1.0, family="espeak"):
    return SampleScore(subset, "0000", proxy, resume, respond, silence, True, 0.5, stop,
                       response, "", family)


def test_subset_figures_keep_strict_and_proxy_apart():
    scores = [_score("user_backchannel", "RESUME", False, False, 2.1),
              _score("user_backchannel", "RESUME", True, False, 0.2),
              _score("user_backchannel", "RESUME", None, False, 0.0, response=None)]
    f = subset_figures(scores)
    assert f["resume"] == 0.5 and f["testable"] == 2  # the untestable one is not a pass
    assert f["proxy"]["resume"] == 1.0 and f["max_silence_s"] == 2.1
    assert f["never_spoke_after"] == 1 and f["n"] == 3


def test_interruption_misses_say_how_the_listener_heard_each_miss():
    def miss(stop, response, overlap_s=2.0):
        return replace(_score("user_interruption", "OTHER", None, False, 0.0, stop=stop,
                              response=response), overlap_s=overlap_s)

    scores = [_score("user_interruption", "RESPOND", None, True, 0.0),
              miss(8.2, None),  # spoke on past the user's last word: talked through
              miss(1.9, 1.0),   # stopped 1.9 s in, while the user still spoke: late
              miss(0.4, None),  # stopped in time, said nothing after
              miss(0.4, 3.6)]   # stopped in time, spoke again 3.6 s after
    assert interruption_misses(scores) == {"talked_through": 1, "stopped_late": 1,
                                           "stopped_unanswered": 1, "answered_late_or_old": 1}


def test_paper_table_layout():
    header, rows = paper_table({"user_interruption": {"respond": 0.9, "proxy": {"respond": 1.0}},
                                "user_backchannel": {"resume": 0.5, "proxy": {"resume": 1.0}}})
    assert "strict = what a listener hears" in header[0]
    assert rows[0][0].endswith("strict (output.wav)") and rows[0][1:] == ["0.90", "0.50", "-", "-"]
    assert rows[1][0].endswith("proxy (decision log)") and rows[1][1:] == ["1.00", "1.00", "-", "-"]
    assert rows[2] == ["Realtime-Venus (paper)", "0.75", "0.97", "0.88", "0.86"]
    assert [r[0] for r in rows[3:]] == ["GPT-4o (paper)", "Gemini Live (paper)"]


def test_the_clean_run_hears_the_clean_input_as_written(tmp_path):
    """The clean run that places the overlap hears exactly what ``clean_input.wav`` holds,
    and so what ``input.wav`` holds before the overlap: the overlap run then hears the
    same question. (Whisper tiny.en hears a 16-bit rounding of a borderline question
    differently: "How do we make sure to?" from the float signal, "I will leave you make
    sure to" from the WAV, so the clean run answered and the overlap run, on the same
    words, did not: 16 s of silence counted against every continuation subset.)"""
    from types import SimpleNamespace

    from venus.eval import synth
    from venus.eval.fdb import read_wav
    from venus.factory import shared_models

    heard = []

    def stream_audio(audio, **_):
        heard.append(np.array(audio))
        out = np.zeros(len(audio), np.float32)
        a = round((len(audio) / SAMPLE_RATE - 6.0) * SAMPLE_RATE)
        out[a:a + 3 * SAMPLE_RATE] = 0.3 * np.sin(np.arange(3 * SAMPLE_RATE) / 5.0)  # "answers"
        return SimpleNamespace(output_audio=out, words=[])

    spec = draw_spec(TUNING_SEED, 1)
    voices = synth._Voices(shared_models().tts, spec)
    folders = synth._write_overlaps(tmp_path, spec, voices, ("user_backchannel",), TUNING_SEED,
                                    8.0, None, stream_audio)
    assert folders and len(heard) == 1
    clean = read_wav(folders[0] / "clean_input.wav")
    assert np.array_equal(heard[0], clean)
    onset = read_meta(folders[0]).timestamps[0]
    before = round(onset * SAMPLE_RATE)
    assert np.array_equal(read_wav(folders[0] / "input.wav")[:before], clean[:before])


def test_the_overlaps_timestamps_mark_its_voice_not_the_synthesizers_padding(tmp_path):
    """Flite pads every clip with 0.15-0.24 s of silence before the voice (Piper ~0.04 s,
    eSpeak none): the overlap begins where its voice begins, for the listener and for
    FDB's timestamps, so a stop is timed from the first sound of "Wait", not from a
    silence nobody heard. The audio is placed exactly as before."""
    from types import SimpleNamespace

    from venus.eval import synth
    from venus.eval.fdb import read_wav
    from venus.factory import shared_models

    lead, voiced, tail = 0.23, 1.2, 0.1
    tone = 0.3 * np.sin(np.arange(round(voiced * SAMPLE_RATE)) / 3.0).astype(np.float32)
    clip = np.concatenate([np.zeros(round(lead * SAMPLE_RATE), np.float32), tone,
                           np.zeros(round(tail * SAMPLE_RATE), np.float32)])

    class Padded(synth._Voices):
        def say(self, text):
            return super().say(text) if text == self.spec.question[0] else clip

    def stream_audio(audio, **_):
        out = np.zeros(len(audio), np.float32)
        a = round((len(audio) / SAMPLE_RATE - 6.0) * SAMPLE_RATE)
        out[a:a + 3 * SAMPLE_RATE] = 0.3 * np.sin(np.arange(3 * SAMPLE_RATE) / 5.0)
        return SimpleNamespace(output_audio=out, words=[])

    spec = draw_spec(TUNING_SEED, 1)
    voices = Padded(shared_models().tts, spec)
    folder, = synth._write_overlaps(tmp_path, spec, voices, ("user_interruption",), TUNING_SEED,
                                    8.0, None, stream_audio)
    start, end = read_meta(folder).timestamps
    added = read_wav(folder / "input.wav") - read_wav(folder / "clean_input.wav")
    sound = np.flatnonzero(np.abs(added) > 1e-3) / SAMPLE_RATE
    assert abs(start - sound[0]) < 0.011 and abs(end - sound[-1]) < 0.011, (start, end, sound[[0, -1]])
