"""Fakes that implement venus's Protocols, for our tests and for users testing their own code.

Shipped with the package (like httpx's ``MockTransport``): they are real implementations
of the seams, only simpler and deterministic. `FakeFrontend` follows a per-chunk script;
`FakeVideoSource` yields synthetic one-second `VideoChunk`s; `FakeMemory` answers
`MemoryView` queries by word overlap over given moments; `FakeSpeechOutput` plays text at
a speaking rate in session time and keeps a history of what was heard; `FakeEndOfTurn`
calls a turn complete after a given silence (or as a function says); `FakeSynthesizer`
speaks a tone per word and can be held mid-synthesis, to test code that must not wait
for a slow voice.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memory.media import SAMPLE_RATE, Frame, VideoChunk
from memory.models.base import Speech, Word
from venus.frontend.base import Decision, DuplexFrame, SessionView
from venus.perception.turn import DEFAULT_THRESHOLD, TurnPrediction
from venus.speech.base import PlaybackStatus, Utterance
from venus.speech.text import TimedTextOutput

__all__ = ["FakeAnswer", "FakeEndOfTurn", "FakeEvidence", "FakeFrontend", "FakeMemory",
           "FakeMoment", "FakeSpeechOutput", "FakeSynthesizer", "FakeVideoSource", "fake_chunk"]

Script = Callable[[DuplexFrame, SessionView], Decision]


class FakeFrontend:
    """A frontend that plays a script: ``{chunk index: Decision or fn(frame, view)}``.

    Chunks without an entry get ``default`` (a Decision or a function); a function gets
    the `DuplexFrame` (``frame.index``, ``frame.chunk``, ...) and the view. Every view it
    was given is kept in ``views`` so tests can check what the frontend saw, and when.
    """

    name = "fake"

    def __init__(self, script: Mapping[int, Decision | Script] | None = None,
                 default: Decision | Script | None = None) -> None:
        self.script = dict(script or {})
        self.default = default or Decision()
        self.views: list[SessionView] = []
        self.closed = False

    def decide(self, frame: DuplexFrame, view: SessionView) -> Decision:
        self.views.append(view)
        entry = self.script.get(frame.index, self.default)
        return entry(frame, view) if callable(entry) else entry

    def reset(self) -> None:
        self.views.clear()

    def close(self) -> None:
        self.closed = True


class FakeVideoSource:
    """``seconds`` synthetic one-second chunks: coloured frames and silence, re-iterable."""

    def __init__(self, seconds: int, *, fps: int = 1, size: tuple[int, int] = (16, 12),
                 has_audio: bool = False) -> None:
        self.seconds, self.fps, self.size, self.has_audio = seconds, fps, size, has_audio

    def __iter__(self) -> Iterator[VideoChunk]:
        for index in range(self.seconds):
            yield fake_chunk(index, fps=self.fps, size=self.size, has_audio=self.has_audio)

    def __len__(self) -> int:
        return self.seconds


def fake_chunk(index: int, *, fps: int = 1, size: tuple[int, int] = (16, 12),
               has_audio: bool = False) -> VideoChunk:
    """Chunk ``index`` covering ``[index, index + 1)``: flat frames whose colour encodes the
    index, and one second of silent 16 kHz audio."""
    width, height = size
    colour = np.array([index % 256, (index * 7) % 256, (index * 13) % 256], dtype=np.uint8)
    frames = tuple(Frame(index + k / fps, np.broadcast_to(colour, (height, width, 3)).copy())
                   for k in range(fps))
    return VideoChunk(index, float(index), float(index + 1), frames,
                      np.zeros(SAMPLE_RATE, dtype=np.float32), has_audio)


@dataclass(frozen=True)
class FakeMoment:
    """A `venus.harness.MemoryMoment`."""

    start: float
    end: float
    text: str
    transcript: str = ""
    ocr_text: str = ""
    keyframe: str | None = None
    score: float = 0.0


@dataclass(frozen=True)
class FakeEvidence:
    """A `venus.harness.MemoryEvidence`."""

    kind: str
    text: str
    start: float
    end: float
    boilerplate: bool = False


@dataclass
class FakeMemory:
    """A `venus.harness.MemoryView` over given moments; ``add`` ingests one more."""

    items: list[FakeMoment] = field(default_factory=list)

    @property
    def version(self) -> int:
        return len(self.items)

    def add(self, moment: FakeMoment) -> None:
        self.items.append(moment)

    def search(self, query: str, k: int = 5, before: float | None = None) -> Sequence[FakeMoment]:
        words = _words(query)
        scored = []
        for m in self.items:
            if before is not None and m.end > before:
                continue
            overlap = len(words & _words(f"{m.text} {m.transcript} {m.ocr_text}"))
            if overlap:
                scored.append(FakeMoment(m.start, m.end, m.text, m.transcript, m.ocr_text,
                                         m.keyframe, overlap / max(1, len(words))))
        scored.sort(key=lambda m: (-m.score, m.start))
        return scored[:k]

    def moments(self, start: float, end: float) -> Sequence[FakeMoment]:
        return sorted((m for m in self.items if m.end > start and m.start < end),
                      key=lambda m: m.start)

    def answer(self, question: str, at: float | None = None, k: int = 3) -> FakeAnswer:
        """The best moment by word overlap that ended by ``at``, quoted with its time."""
        hits = self.search(question, k=1, before=at)
        if not hits:
            return FakeAnswer("I have not seen anything about that yet.")
        best = hits[0]
        return FakeAnswer(f"At {int(best.start) // 60}:{int(best.start) % 60:02d}, "
                          f"{best.text or best.transcript}", (best,))

    @property
    def duration(self) -> float:
        return max((m.end for m in self.items), default=0.0)

    def evidence(self, start: float, end: float) -> Sequence[FakeEvidence]:
        """Each moment's sentences (said) and screen lines (shown), with its times (of the
        moments `moments` returns for the range)."""
        out = []
        for m in self.moments(start, end):
            out += [FakeEvidence("shown", line.strip(), m.start, m.end)
                    for line in m.ocr_text.splitlines() if line.strip()]
            out += [FakeEvidence("said", s.strip(), m.start, m.end)
                    for s in re.split(r"(?<=[.!?])\s+", m.transcript) if s.strip()]
        return out


@dataclass(frozen=True)
class FakeAnswer:
    """A `venus.harness.MemoryAnswer`."""

    text: str
    citations: tuple[FakeMoment, ...] = ()


class FakeSpeechOutput(TimedTextOutput):
    """`TimedTextOutput` that remembers every start, finish and stop in ``history``."""

    def __init__(self, words_per_second: float = 2.5, min_seconds: float = 0.5) -> None:
        super().__init__(words_per_second, min_seconds)
        self.history: list[tuple[str, PlaybackStatus, float, float, str]] = []

    def played_hook(self, utterance: Utterance, status: PlaybackStatus, time: float,
                    heard: float) -> None:
        self.history.append((utterance.utterance_id, status, time, heard, utterance.text))

    @property
    def heard(self) -> list[str]:
        """Texts played to the end, in order."""
        return [h[4] for h in self.history if h[1] is PlaybackStatus.FINISHED]


class FakeSynthesizer:
    """A `memory.models.base.SpeechSynthesizer`: each word a ``word_s`` tone (its own
    pitch) with exact word timings, the same samples for the same text.

    `hold` makes every call (after the next ``after``) wait inside the synthesizer until
    `release` (at most ``max_hold_s`` real seconds, then it fails: a test that deadlocks
    says so); ``calls`` lists the texts asked for, ``inside`` how many calls wait now, and
    `wait_inside` blocks until one does.
    """

    sample_rate = SAMPLE_RATE

    def __init__(self, word_s: float = 0.3, max_hold_s: float = 10.0) -> None:
        self.word_s, self.max_hold_s = word_s, max_hold_s
        self.calls: list[str] = []
        self.inside = 0
        self._open, self._entered = threading.Event(), threading.Event()
        self._open.set()
        self._free = 0

    def hold(self, after: int = 0) -> None:
        self._free = after
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def wait_inside(self, timeout: float = 10.0) -> None:
        if not self._entered.wait(timeout):
            raise TimeoutError(f"no call reached the held FakeSynthesizer in {timeout} s")

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech:
        self.calls.append(text)
        if self._free > 0:
            self._free -= 1
            return self._speak(text)
        self.inside += 1
        if not self._open.is_set():
            self._entered.set()
        try:
            if not self._open.wait(self.max_hold_s):
                raise TimeoutError(f"FakeSynthesizer held {self.max_hold_s} s: nobody released it")
        finally:
            self.inside -= 1
        return self._speak(text)

    def _speak(self, text: str) -> Speech:
        n = round(self.word_s * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        tones, words = [], []
        for i, word in enumerate(text.split()):
            tones.append(0.3 * np.sin(2 * np.pi * (200 + 10 * (len(word) % 20)) * t))
            words.append(Word(word, i * self.word_s, (i + 1) * self.word_s))
        audio = np.concatenate(tones).astype(np.float32) if tones else np.zeros(0, np.float32)
        return Speech(audio=audio, words=tuple(words), text=" ".join(text.split()))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class FakeEndOfTurn:
    """A `venus.perception.EndOfTurnModel`: complete once the audio ends in ``silence_s``
    of silence (every sample below ``level``), or as ``rule(audio) -> probability`` says.

    ``heard`` keeps the length in samples of the audio each `predict` was given, so a test
    can check how much of the turn the caller passed. ``seconds`` is always 0.
    """

    def __init__(self, silence_s: float = 0.5, *, level: float = 0.01,
                 rule: Callable[[np.ndarray], float] | None = None,
                 threshold: float = DEFAULT_THRESHOLD) -> None:
        self.silence_s, self.level, self.rule, self.threshold = silence_s, level, rule, threshold
        self.heard: list[int] = []

    def predict(self, audio: np.ndarray) -> TurnPrediction:
        self.heard.append(len(audio))
        probability = float(self.rule(audio)) if self.rule else self._silent_tail(audio)
        return TurnPrediction(complete=probability > self.threshold, probability=probability,
                              seconds=0.0)

    def _silent_tail(self, audio: np.ndarray) -> float:
        n = round(self.silence_s * SAMPLE_RATE)
        tail = np.asarray(audio[-n:]) if n else np.zeros(0)
        return float(len(audio) >= n and not np.any(np.abs(tail) >= self.level))
