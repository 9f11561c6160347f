"""A spoken "tell me when ..." in a session with the embedded frontend, in simulated
time: real Silero VAD on eSpeak speech, the real frontend, harness and ``watch``; the
transcriber is a stand-in that hears what was said (Whisper's timing is not under test).
The alert is spoken at an opening of the floor, never over the user."""

from __future__ import annotations

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk
from memory.models import VOICES, EspeakSynthesizer, SileroSpeechDetector
from memory.models.base import Transcript, TranscriptSegment, Word
from venus.capabilities import builtin_capabilities
from venus.clock import SimulatedClock
from venus.events import (
    DelegationRequested,
    SpeechDetected,
    UserWordsTranscribed,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend.embedded import EmbeddedFrontend
from venus.perception import PerceptionConfig, UserPerception
from venus.runtime import DuplexIO, DuplexOptions, Session, SessionOptions
from venus.testing import FakeMemory, FakeMoment, FakeSpeechOutput

REQUEST = "Tell me when he mentions chess."
LATER = "And what are the rules of the game of chess about pieces?"


class Heard:
    """A `Transcriber` that hears the utterances placed at known times."""

    def __init__(self, said: list[tuple[float, float, str]]) -> None:
        self.said = said

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        end = offset + len(audio) / SAMPLE_RATE
        segments = []
        for start, stop, text in self.said:
            if start < end and stop > offset:
                words = text.split()
                step = (stop - start) / len(words)
                ws = tuple(Word(w, start + step * i, start + step * (i + 1))
                           for i, w in enumerate(words))
                segments.append(TranscriptSegment(text, start, stop, ws))
        return Transcript(tuple(segments))


def _audio(seconds: int, said: list[tuple[float, str]]):
    tts = EspeakSynthesizer()
    audio = np.zeros(seconds * SAMPLE_RATE, np.float32)
    spans = []
    for at, text in said:
        speech = tts.synthesize(text, voice=VOICES[0]).audio.astype(np.float32)
        i = int(at * SAMPLE_RATE)
        audio[i:i + len(speech)] = speech[: len(audio) - i]
        spans.append((at, at + len(speech) / SAMPLE_RATE, text))
    chunks = [VideoChunk(k, float(k), float(k + 1), (), audio[k * SAMPLE_RATE:(k + 1) * SAMPLE_RATE])
              for k in range(seconds)]
    return chunks, spans


def test_a_spoken_watch_alerts_at_an_opening_of_the_floor_not_over_the_user():
    memory = FakeMemory([
        FakeMoment(0, 5, "intro", "Welcome. He pressed a hand to his chest."),
        FakeMoment(20, 24, "chess", "Chess is a game of strategy."),
    ])
    # the user asks for the watch, then talks right when chess comes up
    chunks, spans = _audio(45, [(1.0, REQUEST), (23.5, LATER)])
    perception = UserPerception(PerceptionConfig(deterministic=True),
                                detector=SileroSpeechDetector(), transcriber=Heard(spans),
                                faces=False)
    duplex = DuplexIO(FakeSpeechOutput(), perception=perception,
                      options=DuplexOptions(partials="overlap"))
    frontend = EmbeddedFrontend(memory=memory, mode="audio")
    with Session(frontend, chunks, clock=SimulatedClock(), duplex=duplex, memory=memory,
                 capabilities=builtin_capabilities(), session_id="watch",
                 options=SessionOptions(drain_s=10.0)) as session:
        session.run()
    timeline = session.timeline
    [asked] = [e for e in timeline.events(DelegationRequested) if e.capability == "watch"]
    assert asked.arguments["condition"] == "he mentions chess"
    heard = session.speech.heard
    assert heard[0].startswith("Sure, I'll let you know when he mentions chess")
    assert "At 0:20: \u201cChess is a game of strategy.\u201d" in heard, heard
    started = [t.time for t in timeline if isinstance(t.event, WorkItemStateChanged)
               and t.event.state is WorkState.DELIVERING]
    user = [(e.start, e.end) for e in timeline.events(SpeechDetected)]
    later = spans[1]
    assert len(started) == 1 and started[0] >= later[1]  # after the user's turn ...
    assert not any(a <= started[0] < b for a, b in user)  # ... and over no speech of theirs
    assert any(LATER.split()[1] in e.text for e in timeline.events(UserWordsTranscribed))
