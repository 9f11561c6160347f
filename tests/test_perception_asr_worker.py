"""Transcription off the decision path: the real `UserPerception`, its real ASR worker
and the real Silero VAD over an eSpeak voice; only the transcriber is a stand-in that
blocks until the test releases it (a slow Whisper), or fails.

Live mode: a chunk never waits for the worker. Deterministic mode: words appear at the
due chunk, whatever the worker's speed, and the chunk waits for them there. Errors are
raised by the next feed; stale partials are coalesced; close joins the thread.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np
import pytest

from memory.media import SAMPLE_RATE, VideoChunk
from memory.models import VOICES, EspeakSynthesizer, SileroSpeechDetector
from memory.models.base import Transcript, TranscriptSegment, Word
from venus.perception import PerceptionConfig, TranscriptionFailed, UserPerception

WAIT_S = 30.0  # upper bound for a worker to pick up a released job (never reached normally)


class GatedTranscriber:
    """A `Transcriber` whose calls block until ``release`` is set; words name the call."""

    def __init__(self, *, blocked: bool = True, error: Exception | None = None) -> None:
        self.release = threading.Event()
        if not blocked:
            self.release.set()
        self.entered = threading.Event()
        self.error = error
        self.calls: list[float] = []  # seconds of audio per call

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        self.calls.append(len(audio) / SAMPLE_RATE)
        self.entered.set()
        assert self.release.wait(WAIT_S), "the test never released the transcriber"
        if self.error is not None:
            raise self.error
        n = len(self.calls)
        word = Word(f"call{n}", offset, offset + len(audio) / SAMPLE_RATE)
        return Transcript((TranscriptSegment(word.text, word.start, word.end, (word,)),))


@lru_cache(maxsize=1)
def _detector() -> SileroSpeechDetector:
    return SileroSpeechDetector()


@lru_cache(maxsize=1)
def _stream() -> np.ndarray:
    """1 s silence, ~2.5 s of speech, then silence: 7 one-second chunks."""
    speech = EspeakSynthesizer().synthesize("Hello there, how are you doing today my friend?",
                                            voice=VOICES[0]).audio
    audio = np.concatenate([np.zeros(SAMPLE_RATE, np.float32), speech.astype(np.float32)])
    return np.pad(audio, (0, 7 * SAMPLE_RATE - len(audio)))


def _chunks():
    audio = _stream()
    for i in range(len(audio) // SAMPLE_RATE):
        yield VideoChunk(i, float(i), float(i + 1), (), audio[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE])


def _perception(asr, **config) -> UserPerception:
    config.setdefault("partials", False)
    # the worker's mechanics with one job per region and a fixed delay: no early final,
    # no per-second latency (tested on their own below)
    config.setdefault("early_final_after_s", None)
    config.setdefault("asr_latency_per_s", 0.0)
    return UserPerception(PerceptionConfig(**config), detector=_detector(), transcriber=asr,
                          faces=False)


def _offset_chunk(perception: UserPerception) -> tuple[list, int]:
    frames = []
    for chunk in _chunks():
        frames.append(perception.feed(chunk))
        if frames[-1].offsets:
            return frames, chunk.index
    raise AssertionError("the VAD found no end of speech")


def test_live_feed_returns_while_the_worker_is_still_transcribing():
    asr = GatedTranscriber()
    perception = _perception(asr, deterministic=False)
    try:
        frames, k = _offset_chunk(perception)
        assert asr.entered.wait(WAIT_S)  # the final job is running, and stuck
        more = [perception.feed(c) for c in list(_chunks())[k + 1:k + 3]]
        assert all(f.transcribing and not f.final_words for f in frames[-1:] + more)
        asr.release.set()
        perception.asr.drain()
        done = perception.feed(VideoChunk(k + 3, k + 3.0, k + 4.0, (), np.zeros(SAMPLE_RATE, np.float32)))
        assert [w.text for w in done.final_words] == ["call1"] and not done.transcribing
    finally:
        asr.release.set()
        perception.close()


@pytest.mark.parametrize("latency_s", [1.0, 2.0])
def test_deterministic_words_appear_at_the_due_chunk_whatever_the_worker_speed(latency_s):
    fast = GatedTranscriber(blocked=False)
    runs = {}
    for name, asr in (("fast", fast), ("slow", GatedTranscriber())):
        perception = _perception(asr, asr_latency_s=latency_s)
        try:
            frames, k = _offset_chunk(perception)
            chunks = list(_chunks())[k + 1:]
            due = k + int(latency_s)
            for chunk in chunks:
                if chunk.index == due and name == "slow":
                    frames.append(_feed_blocks_until_released(perception, chunk, asr))
                else:
                    frames.append(perception.feed(chunk))
            runs[name] = frames
        finally:
            asr.release.set()
            perception.close()
        with_words = [f.chunk_index for f in frames if f.final_words]
        assert with_words == [due], (name, with_words)
        assert all(f.transcribing for f in frames[k:due])
    assert runs["fast"] == runs["slow"]  # identical frames: the worker's speed is invisible


def _feed_blocks_until_released(perception, chunk, asr):
    out = []
    feeder = threading.Thread(target=lambda: out.append(perception.feed(chunk)))
    feeder.start()
    feeder.join(0.3)
    assert feeder.is_alive(), "the due chunk did not wait for its words"
    asr.release.set()
    feeder.join(WAIT_S)
    return out[0]


def test_zero_latency_shows_final_words_in_the_chunk_the_speech_ended():
    asr = GatedTranscriber(blocked=False)
    perception = _perception(asr, asr_latency_s=0.0)
    try:
        frames, _ = _offset_chunk(perception)
        assert [w.text for w in frames[-1].final_words] == ["call1"]
        assert not frames[-1].transcribing
    finally:
        perception.close()


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_worker_error_surfaces_on_the_next_feed(deterministic):
    asr = GatedTranscriber(blocked=False, error=RuntimeError("model file is corrupt"))
    perception = _perception(asr, deterministic=deterministic)
    try:
        _, k = _offset_chunk(perception)
        assert asr.entered.wait(WAIT_S)
        perception.asr.worker.join_idle()
        with pytest.raises(TranscriptionFailed, match="model file is corrupt") as info:
            perception.feed(list(_chunks())[k + 1])
        assert isinstance(info.value.__cause__, RuntimeError)
    finally:
        perception.close()


def test_live_partials_of_a_region_are_coalesced_to_the_newest():
    asr = GatedTranscriber()
    perception = _perception(asr, deterministic=False, partials=True)
    try:
        chunks = list(_chunks())
        frames = [perception.feed(c) for c in chunks[:4]]  # speech from 1 s: partials at 2, 3, 4
        assert asr.entered.wait(WAIT_S)
        asr.release.set()
        perception.asr.drain()
        frames += [perception.feed(c) for c in chunks[4:]]
        # The first partial was running when the next came, so that one was queued, and
        # replaced by the newer job of its region: fewer calls than requests.
        requested = sum(f.speaking for f in frames) + sum(len(f.offsets) for f in frames)
        assert 2 <= len(asr.calls) < requested, (asr.calls, requested)
        shown = list(perception.asr.finished)
        assert [j.kind for j in shown][-1] == "final" and len(shown) == len(asr.calls)
        assert [j.seq for j in shown] == sorted(j.seq for j in shown)
        assert any(f.final_words for f in frames)
    finally:
        perception.close()


def test_close_joins_the_worker_and_reset_drops_queued_jobs():
    asr = GatedTranscriber()
    perception = _perception(asr, deterministic=False)
    _offset_chunk(perception)
    assert asr.entered.wait(WAIT_S)
    thread = perception.asr.worker.thread
    assert thread is not None and thread.is_alive()
    perception.reset()
    frame = perception.feed(VideoChunk(20, 20.0, 21.0, (), np.zeros(SAMPLE_RATE, np.float32)))
    assert not frame.transcribing and not frame.final_words
    asr.release.set()
    perception.close()
    assert not thread.is_alive()


class AxisEmbedder:
    """A `TextEmbedder` on two axes ("context" texts, "other" texts, anything else in
    between) that records which thread called it."""

    dim = 2

    def __init__(self) -> None:
        self.threads: list[str] = []

    def embed(self, texts):
        self.threads.append(threading.current_thread().name)
        rows = [[1.0, 0.0] if "context" in t else [0.0, 1.0] if "other" in t else [0.6, 0.8]
                for t in texts]
        return np.array(rows, np.float32)


def test_the_topic_cue_is_measured_on_the_worker_with_the_context_at_submission():
    embedder = AxisEmbedder()
    perception = UserPerception(PerceptionConfig(partials=False), detector=_detector(),
                                transcriber=GatedTranscriber(blocked=False), embedder=embedder,
                                faces=False)
    try:
        perception.set_context("the context words")
        _, k = _offset_chunk(perception)  # the final job is submitted with that context
        perception.set_context("some other talk")  # changed before the words are due
        frame = perception.feed(list(_chunks())[k + 1])
        assert frame.final_words and frame.cues.topic_similarity == pytest.approx(0.6)
        assert embedder.threads and set(embedder.threads) == {"venus-asr"}
    finally:
        perception.close()


def test_an_early_transcription_becomes_the_final_words_when_the_offset_follows():
    """Quiet for `early_final_after_s` before the VAD confirms the offset: the region is
    transcribed then, and when the offset follows with no speech since, that job is the
    region's final words (no second Whisper pass), due sooner; fed in the runtime's hops."""
    from venus.runtime.hops import split_hops

    asr = GatedTranscriber(blocked=False)
    perception = _perception(asr, early_final_after_s=0.1)
    try:
        frames = [perception.feed(h) for c in _chunks() for h in split_hops(c, 0.1)]
        perception.asr.drain()
        offset = next(f.offsets[0] for f in frames if f.offsets)
        shown = next(f for f in frames if f.final_words)
        submitted = [j for j in perception.asr.finished if j.kind == "final"][0].submitted
        assert submitted < offset + PerceptionConfig().offset_silence_s  # before the VAD said so
        assert shown.end < offset + 1.0  # the fitted latency, not a chunk and a second
        assert len(asr.calls) == len({j.seq for j in perception.asr.finished})  # one pass a job
    finally:
        perception.close()


def test_words_shown_early_are_the_final_words_without_a_second_whisper_pass():
    """Live, the region so far is transcribed once the user has been quiet 0.1 s, and with
    the short pass it is done, and shown as partial words, before the VAD confirms the
    offset. Those words are then the region's final words at once: Whisper is not run on
    the region a second time (that cost a hop and ~0.3 s of every reply)."""
    tts = GatedTranscriber(blocked=False)
    perception = UserPerception(PerceptionConfig(deterministic=False, partials=False),
                                detector=_detector(), transcriber=tts, faces=False)
    audio, step = _stream(), SAMPLE_RATE // 10
    finals, partials = [], []
    for i in range(len(audio) // step):
        chunk = VideoChunk(i // 10, i / 10, (i + 1) / 10, (), audio[i * step:(i + 1) * step])
        frame = perception.feed(chunk)
        partials += [w.text for w in frame.partial_words if not frame.final_words]
        finals += [w.text for w in frame.final_words]
        perception.asr.drain()  # Whisper is faster than a hop (as the short pass is here)
    perception.close()
    # the early words were shown before the offset (a pause mid-sentence made an earlier
    # early job too), and the last of them are the final words: no call after them
    assert partials and finals == [partials[-1]]
    assert finals[0] == f"call{len(tts.calls)}"


def test_the_end_of_turn_model_hears_the_turn_early_and_the_offset_uses_its_verdict():
    """Quiet 0.1 s before the VAD confirms the offset: the end-of-turn model hears the turn
    then (beside Whisper), with its silence continued to `TURN_SILENCE_S` as it would be at
    the offset; the offset's hop takes that verdict and runs the model no second time. A
    model that calls the turn unfinished keeps it open (`turn_open`)."""
    from venus.perception.user import TURN_SILENCE_S
    from venus.runtime.hops import split_hops
    from venus.testing import FakeEndOfTurn

    for silence_s, complete in ((0.25, True), (0.5, False)):
        tails: list[float] = []  # the silence after the last sound of each turn heard

        def rule(audio, silence_s=silence_s, tails=tails):
            tails.append((len(audio) - 1 - np.flatnonzero(np.abs(audio) >= 0.01)[-1]) / SAMPLE_RATE)
            return 1.0 if tails[-1] >= silence_s else 0.0

        turn = FakeEndOfTurn(rule=rule)  # 0.5 s: more silence than the model is given
        perception = UserPerception(
            PerceptionConfig(partials=False, early_final_after_s=0.1, asr_latency_per_s=0.0),
            detector=_detector(), transcriber=GatedTranscriber(blocked=False), faces=False,
            end_of_turn=turn)
        frames, asked = [], []  # how often the model had been asked after each hop
        try:
            for hop in (h for c in _chunks() for h in split_hops(c, 0.1)):
                frames.append(perception.feed(hop))
                asked.append(len(turn.heard))
        finally:
            perception.close()
        i = next(i for i, f in enumerate(frames) if f.offsets)
        offset = frames[i]
        assert asked[i] == asked[i - 1] == len(turn.heard)  # heard before, not at the offset
        assert offset.end - offset.offsets[0] >= PerceptionConfig().offset_silence_s - 1e-6
        # what it heard ends in the silence held to TURN_SILENCE_S past the VAD's offset
        # (heard early, only 0.1-0.2 s of it had passed)
        assert tails[-1] == pytest.approx(TURN_SILENCE_S, abs=0.05)
        assert bool(offset.turn_ends) is complete
        assert offset.turn_open is not complete
