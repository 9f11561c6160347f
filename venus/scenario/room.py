"""The simulated room: the microphone signal of a scripted conversation, hop by hop.

Behaviour layer of `venus.scenario`, above `schema`. `SimulatedRoom` is a source of
one-second `VideoChunk`s for a `venus.runtime.Session`: frames from the scenario's video
(if any) and, as audio, what a microphone would pick up: every turn's synthesized voice
at its level, optionally the video's own audio, seeded noise and the echo of the
assistant's own playback (``echo``: its preview, delayed and attenuated). Chunks are built
lazily, when the session asks for them, so a turn timed ``after_assistant`` is placed
once the assistant has really started speaking. ``placed`` records where each turn
landed (the ground truth for tests and evaluation); `input_audio` is the whole
microphone signal so far (``input.wav``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk
from memory.models.base import Speech, SpeechSynthesizer
from venus.scenario.schema import Scenario, Turn

__all__ = ["PlacedTurn", "SimulatedRoom"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlacedTurn:
    """Where a turn landed on the session timeline, and its spoken words' times."""

    index: int
    turn: Turn
    start: float
    end: float
    words: tuple[tuple[str, float, float], ...]


class SimulatedRoom:
    """A lazily mixed microphone over the scenario's video (see the module docstring).

    ``output`` is the assistant's `venus.speech.AudioSpeechOutput` (needed for echo and
    for ``after_assistant`` turns); ``video`` an iterable of `VideoChunk` (e.g.
    ``memory.video.open_video``), ending the scenario with the video unless turns remain;
    ``on_video(chunk)`` sees each video chunk as it is watched (to grow a memory live);
    ``tts`` any `SpeechSynthesizer`. ``hop_s``: the microphone is handed out in hops of this
    length (the session's hop, `venus.runtime.SessionOptions`), each mixed when the session
    asks for it, so the echo in it is what the assistant really played up to then.
    """

    def __init__(self, scenario: Scenario, tts: SpeechSynthesizer, *, output=None,
                 video=None, on_video=None, hop_s: float = 0.1) -> None:
        self.scenario = scenario
        self.hop_s = hop_s
        self.output = output
        self.video = video
        self.on_video = on_video  # called with each video chunk as it is watched (live memory)
        if output is None and (scenario.echo or any(t.after_assistant for t in scenario.turns)):
            raise ValueError("echo and 'after_assistant' turns need the assistant's output")
        self._speech = [self._voice(tts, t) for t in scenario.turns]
        self._mic = np.zeros(SAMPLE_RATE * 60, np.float32)
        self._written = 0  # samples of microphone signal handed out
        self.placed: list[PlacedTurn | None] = [None] * len(scenario.turns)
        self._rng = np.random.default_rng(scenario.seed)

    @staticmethod
    def _voice(tts: SpeechSynthesizer, turn: Turn) -> Speech:
        speech = tts.synthesize(turn.text, voice=turn.voice, rate=turn.rate, pitch=turn.pitch)
        return Speech((speech.audio * 10 ** (turn.gain_db / 20)).astype(np.float32),
                      speech.words, speech.text)

    # -- the chunk source ------------------------------------------------------------
    def __iter__(self) -> Iterator[VideoChunk]:
        video = iter(self.video) if self.video is not None else None
        index = 0
        n = max(1, round(1.0 / self.hop_s))
        step = SAMPLE_RATE // n
        while True:
            start, end = float(index), float(index + 1)
            v = next(video, None) if video is not None else None
            if v is None and self._done(start):
                return
            if v is not None and self.on_video is not None:
                self.on_video(v)
            self._place(start)
            extra = self._extra(index, v)
            frames = v.frames if v is not None else ()
            for h in range(n):
                if h:
                    self._place(start + h / n)
                a, b = h * step, SAMPLE_RATE if h == n - 1 else (h + 1) * step
                lo, hi = index * SAMPLE_RATE + a, index * SAMPLE_RATE + b
                hop = self._mic[lo:hi] + extra[a:b] + self._echo(lo, hi)
                self._mic[lo:hi] = hop  # what the microphone really picked up (input.wav)
                self._written = hi
                yield VideoChunk(index, start + a / SAMPLE_RATE,
                                 end if h == n - 1 else start + b / SAMPLE_RATE,
                                 frames if h == 0 else (), hop, True)
            index += 1

    def _done(self, t: float) -> bool:
        if t >= self.scenario.max_s:
            return True
        if any(p is None for p in self.placed):
            ends = [p.end for p in self.placed if p is not None]
            if t >= max(ends, default=0.0) + self.scenario.wait_s:
                logger.warning("the assistant never spoke for a turn timed after it: ending")
                return True
            return False
        return t >= max((p.end for p in self.placed), default=0.0) + self.scenario.tail_s

    def _place(self, now: float) -> None:
        """Place every turn whose start is now known and has not been placed yet."""
        anchor = 0.0
        for i, (turn, speech) in enumerate(zip(self.scenario.turns, self._speech)):
            placed = self.placed[i]
            if placed is None:
                start = turn.at if turn.at is not None else self._after_assistant(anchor, turn)
                if start is None:
                    return  # later turns wait for this one
                if start < now:
                    logger.warning("turn %d placed late at %.2f s instead of %.2f s", i, now, start)
                    start = now
                placed = self._mix(i, turn, speech, start)
            anchor = placed.start

    def _after_assistant(self, anchor: float, turn: Turn) -> float | None:
        starts = [t for _, t in self.output.started if t >= anchor]
        if len(starts) < turn.nth_utterance:
            return None
        return starts[turn.nth_utterance - 1] + turn.after_assistant

    def _mix(self, i: int, turn: Turn, speech: Speech, start: float) -> PlacedTurn:
        a = round(start * SAMPLE_RATE)
        self._grow(a + len(speech.audio))
        self._mic[a:a + len(speech.audio)] += speech.audio
        words = tuple((w.text, start + w.start, start + w.end) for w in speech.words)
        placed = PlacedTurn(i, turn, start, start + speech.duration, words)
        self.placed[i] = placed
        return placed

    def _extra(self, index: int, video: VideoChunk | None) -> np.ndarray:
        """What the microphone picks up over second ``index`` besides the turns and the
        echo: the video's own audio and the room's noise."""
        self._grow((index + 1) * SAMPLE_RATE)
        audio = np.zeros(SAMPLE_RATE, np.float32)
        s = self.scenario
        if video is not None and s.video_audio_db is not None and video.audio is not None:
            extra = np.asarray(video.audio, np.float32)[:SAMPLE_RATE]
            audio[:len(extra)] += extra * 10 ** (s.video_audio_db / 20)
        if s.noise_db is not None:
            audio += (self._rng.standard_normal(SAMPLE_RATE) * 10 ** (s.noise_db / 20)).astype(np.float32)
        return audio

    def _echo(self, a: int, b: int) -> np.ndarray:
        """The echo of the assistant's playback in samples ``[a, b)`` of the microphone,
        as the output plays it when the session hears them."""
        s = self.scenario
        if s.echo is None:
            return np.zeros(b - a, np.float32)
        delay = s.echo.delay_ms / 1000.0
        echo = self.output.preview(a / SAMPLE_RATE - delay, b / SAMPLE_RATE - delay)
        return (echo * 10 ** (s.echo.gain_db / 20)).astype(np.float32)

    def _grow(self, n: int) -> None:
        if n > len(self._mic):
            grown = np.zeros(max(n, 2 * len(self._mic)), np.float32)
            grown[:len(self._mic)] = self._mic
            self._mic = grown

    def input_audio(self) -> np.ndarray:
        """The microphone signal handed to the session so far (16 kHz mono)."""
        return self._mic[:self._written].copy()
