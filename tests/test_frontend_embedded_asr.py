"""`EmbeddedFrontend` with Whisper off the decision path: the real frontend, perception,
ASR worker and Silero VAD; the transcriber is a stand-in that blocks until released.

Live mode: hearing a chunk returns while the worker is stuck, the turn is not answered on
half of its words, and it is answered at the first step after the words are ready.
Deterministic mode (a session in simulated time): the answer comes at the due chunk, and
the session's step time leaves out the wait.
"""

from __future__ import annotations

import threading

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk
from memory.models import VOICES, EspeakSynthesizer, SileroSpeechDetector
from memory.models.base import Transcript, TranscriptSegment, Word
from venus.clock import SimulatedClock
from venus.frontend.base import SessionView
from venus.frontend.embedded import EmbeddedFrontend
from venus.perception import PerceptionConfig, UserPerception
from venus.runtime import DuplexIO, DuplexOptions, Session, SessionOptions

QUESTION = ("What", "do", "leaves", "make", "from", "sunlight?")


class GatedQuestion:
    """A `Transcriber` that hears the question, once the test sets ``release``."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        self.entered.set()
        assert self.release.wait(30.0)
        words = tuple(Word(w, offset + 0.3 * i, offset + 0.3 * (i + 1)) for i, w in enumerate(QUESTION))
        return Transcript((TranscriptSegment(" ".join(QUESTION), words[0].start, words[-1].end, words),))


def _chunks(n: int = 7):
    speech = EspeakSynthesizer().synthesize(" ".join(QUESTION), voice=VOICES[0]).audio
    audio = np.concatenate([np.zeros(SAMPLE_RATE, np.float32), speech.astype(np.float32)])
    audio = np.pad(audio, (0, n * SAMPLE_RATE - len(audio)))
    return [VideoChunk(i, float(i), float(i + 1), (), audio[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE])
            for i in range(n)]


def _view(i: int) -> SessionView:
    return SessionView("asr", float(i + 1), i, False, (), (), (), (), ())


def _perception(asr, deterministic: bool) -> UserPerception:
    return UserPerception(PerceptionConfig(deterministic=deterministic),
                          detector=SileroSpeechDetector(), transcriber=asr, faces=False)


def test_live_steps_never_wait_for_whisper_and_answer_once_the_words_are_in():
    asr = GatedQuestion()
    duplex = DuplexIO(perception=_perception(asr, deterministic=False),
                      options=DuplexOptions(partials="overlap"))
    frontend = EmbeddedFrontend(mode="audio")
    waits = []

    def hear(chunk):
        before = duplex.perception.asr.waited_s
        frame = duplex.hear(chunk)
        waits.append(duplex.perception.asr.waited_s - before)
        return frame

    try:
        chunks = _chunks()
        decisions = []
        for chunk in chunks[:5]:
            decisions.append(frontend.decide(hear(chunk), _view(chunk.index)))
        # Whisper is stuck: its worker thread took the turn (under load it may start a
        # moment after the fifth chunk is heard, so wait for it, not for a clock)
        assert asr.entered.wait(30.0) and not asr.release.is_set()
        assert not any(d.speech for d in decisions)  # no answer on half a turn
        asr.release.set()
        duplex.perception.asr.drain()
        answered = frontend.decide(hear(chunks[5]), _view(5))
        assert answered.speech == "I have no video memory to answer that from."
        assert any(getattr(e, "text", "") == " ".join(QUESTION) for e in answered.perceived)
        assert sum(waits) == 0.0  # live: hearing a chunk never waited
    finally:
        asr.release.set()
        duplex.close()


def test_deterministic_steps_answer_at_the_due_chunk_and_the_wait_is_left_out():
    asr = GatedQuestion()
    asr.release.set()
    recorder = _Recording(EmbeddedFrontend(mode="audio"))
    duplex = DuplexIO(perception=_perception(asr, deterministic=True),
                      options=DuplexOptions(partials="overlap"))
    with Session(recorder, _chunks(), clock=SimulatedClock(), duplex=duplex,
                 options=SessionOptions(drain_s=0.0)) as session:
        session.run()
    decisions = recorder.decisions
    offset_chunk = next(i for i, d in enumerate(decisions)
                        if any(type(e).__name__ == "SpeechDetected" and e.end < i + 1
                               for e in d.perceived))
    answers = [i for i, d in enumerate(decisions) if d.speech]
    # the words are due the fitted Whisper latency after the speech (under a second), so
    # the answer comes in the chunk of the offset or the next, never before
    assert len(answers) == 1 and offset_chunk <= answers[0] <= offset_chunk + 1, answers
    hops = round(1.0 / session.hop_s)  # every hop is heard and timed; this one decides per chunk
    assert len(session.step_seconds) == len(session.asr_wait_seconds) == hops * len(decisions)


class _Recording:
    """A frontend that keeps the decisions of the one it wraps."""

    def __init__(self, inner: EmbeddedFrontend) -> None:
        self.inner, self.name, self.decisions = inner, inner.name, []

    def decide(self, frame, view):
        self.decisions.append(self.inner.decide(frame, view))
        return self.decisions[-1]

    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        self.inner.close()
