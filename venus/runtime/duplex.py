"""`DuplexIO`: the physical duplex loop of one session (microphone in, speaker out).

Behaviour layer of the runtime, above `venus.speech`, `venus.perception` and the frontend
seam; the session composes it. Every frontend gets the same audio path, per one-second
chunk (`DuplexIO.hear`):

1. **Echo**: the output's played signal over the chunk is the reference; the canceller
   removes it from the input, so the assistant's own voice never reaches perception.
2. **Perception** of the cleaned chunk (`venus.perception.UserPerception`): VAD onsets and
   offsets at 32 ms, words from its background ASR worker, loudness against the
   calibrated user, addressee cues, the face cue.
3. **Gate** (`OverlapGate`, stage one of floor control): a user onset while the
   assistant is audible opens an `venus.frontend.Overlap` and steers the output at
   the onset's own samples (see `GatePolicy`); the output then plays up to the chunk's
   end with those actions applied (`OutputControl.advance`).

The frontend then decides (stage two) from the resulting `venus.frontend.DuplexFrame`,
and `DuplexIO.settle` applies its verdict on the open overlap: harmless (backchannel,
other-directed, background, or CONTINUE_SPEAKING) releases the output, an interruption
(or a stopping floor action) closes the episode while the session stops the output.

The output is any `venus.speech.SpeechOutput`; echo removal and the gate need one with a
sample cursor (`venus.speech.OutputControl`, e.g. `AudioSpeechOutput`), and the gate
needs perception. Without them the chunk passes through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from memory.audio import rms_db
from memory.media import SAMPLE_RATE, VideoChunk, as_audio
from venus.errors import ConfigError
from venus.events import FloorAction, OverlapClassified, OverlapKind
from venus.frontend.base import Decision, DuplexFrame, Overlap
from venus.perception import PerceptionFrame, UserPerception
from venus.speech import EchoCanceller, EchoOptions, OutputControl, SpeechOutput, TimedTextOutput

__all__ = ["DuplexIO", "DuplexOptions", "GatePolicy", "OverlapGate"]

_STOPPING = (FloorAction.YIELD_FLOOR, FloorAction.STOP_OUTPUT, FloorAction.REVISE_RESPONSE)


@dataclass(frozen=True)
class GatePolicy:
    """Stage one of floor control, at 32 ms resolution inside the chunk.

    At a detected user onset the output is *ducked* ``duck_after_s`` later (Silero
    confirms an onset 64 ms after it starts, so 0.12 s lands within the 100-300 ms the
    design asks for) and, unless the new voice is ``quiet_db`` or more below the
    calibrated user (a TV, a far talker) or has already stopped, *paused* at
    ``pause_after_s``: the cursor holds and nothing queued is lost.
    """

    duck_after_s: float = 0.12
    pause_after_s: float = 0.30
    quiet_db: float = 8.0


@dataclass(frozen=True)
class DuplexOptions:
    """``gate``: stage one; ``echo``: the canceller; ``audible_db``: the output counts as
    audible above this level (an onset over silence is no overlap); ``partials``: when
    perception re-transcribes the open region for partial words, "always" (every chunk:
    model frontends read them) or "overlap" (only while an overlap is open: the embedded
    policy reads words only there, and each partial costs a Whisper pass)."""

    gate: GatePolicy = field(default_factory=GatePolicy)
    echo: EchoOptions = field(default_factory=EchoOptions)
    audible_db: float = -50.0
    partials: Literal["always", "overlap"] = "always"

    def __post_init__(self) -> None:
        if self.partials not in ("always", "overlap"):
            raise ConfigError(f"partials must be 'always' or 'overlap', got {self.partials!r}")


class OverlapGate:
    """Duck, then pause, the output at a user onset while it plays (see `GatePolicy`).

    The gate only schedules; the output applies the actions at their samples when it
    plays past them. ``episode`` is the open `Overlap`, if any.
    """

    def __init__(self, output: OutputControl, policy: GatePolicy | None = None,
                 offset_delay_s: float = 0.25) -> None:
        self.output = output
        self.policy = policy or GatePolicy()
        self.offset_delay_s = offset_delay_s  # how late the VAD confirms an offset
        self.episode: Overlap | None = None

    def onset(self, at: float, quiet: bool) -> Overlap:
        """User speech began at ``at`` while the assistant was speaking."""
        if self.episode is None:
            self.episode = Overlap(at, quiet)
            self.output.duck(at + self.policy.duck_after_s)
            if not quiet:
                self.output.pause(at + self.policy.pause_after_s)
        return self.episode

    def offset(self, at: float) -> None:
        """User speech ended at ``at``; a pause not yet reached is not needed."""
        ep = self.episode
        if ep is None:
            return
        self.episode = replace(ep, ended_at=at)
        if at + self.offset_delay_s < ep.onset + self.policy.pause_after_s:
            self.output.cancel_scheduled("pause")

    def release(self, at: float) -> None:
        """The overlap was harmless: full gain and playback again from ``at``."""
        self.output.cancel_scheduled("pause")
        self.output.cancel_scheduled("duck")
        self.output.resume(at)
        self.output.unduck(at)
        self.episode = None

    def clear(self) -> None:
        """The floor was yielded (the output is stopped): forget the episode."""
        self.episode = None


class DuplexIO:
    """Echo removal, perception, the overlap gate and the output of one session."""

    def __init__(self, output: SpeechOutput | None = None,
                 perception: UserPerception | None = None,
                 options: DuplexOptions | None = None) -> None:
        self.options = options or DuplexOptions()
        self.output: SpeechOutput = output if output is not None else TimedTextOutput()
        self.control = self.output if isinstance(self.output, OutputControl) else None
        self.perception = perception
        self.echo = EchoCanceller(self.options.echo) if self.control is not None else None
        self.gate = (OverlapGate(self.control, self.options.gate,
                                 perception.config.offset_silence_s)
                     if self.control is not None and perception is not None else None)
        self._partials_in_overlap = (perception is not None and perception.config.partials
                                     and self.options.partials == "overlap")
        if self._partials_in_overlap:
            # Requested here, after the gate, instead of on every chunk (see DuplexOptions).
            perception.config = replace(perception.config, partials=False)

    # -- one chunk -----------------------------------------------------------------------
    def hear(self, chunk: VideoChunk) -> DuplexFrame:
        """Clean, perceive and gate one chunk, and play the output up to its end."""
        heard, reference = self._cancel_echo(chunk)
        frame = self.perception.feed(heard) if self.perception is not None else None
        if frame is not None and self.gate is not None:
            self._gate(frame, heard.audio, reference, chunk.start)
            if self._partials_in_overlap and self.gate.episode is not None:
                self.perception.request_partial()
        control = self.control
        if control is not None:
            control.advance(chunk.end)
        return DuplexFrame(heard, frame, self.gate.episode if self.gate else None,
                           self.output.busy, control.heard_so_far() if control else None)

    def settle(self, decision: Decision, now: float) -> None:
        """Apply the frontend's decision: its verdict on the open overlap (see the module
        docstring) and the conversation's new topic, for perception's topical cue."""
        if decision.topic is not None and self.perception is not None:
            self.perception.set_context(list(decision.topic))
        gate = self.gate
        if gate is None or gate.episode is None:
            return
        kinds = [e.kind for e in decision.perceived if isinstance(e, OverlapClassified)]
        if kinds:
            if kinds[-1] is OverlapKind.INTERRUPTION:
                gate.clear()
            else:
                gate.release(now)
        elif decision.floor is FloorAction.CONTINUE_SPEAKING:
            gate.release(now)
        elif decision.floor in _STOPPING:
            gate.clear()

    def reset(self) -> None:
        """Forget the stream: perception, the echo path and any open overlap."""
        if self.perception is not None:
            self.perception.reset()
        if self.echo is not None:
            self.echo.reset()
        if self.gate is not None:
            self.gate.clear()

    def close(self) -> None:
        """Stop perception's ASR worker (joins it after its current job)."""
        if self.perception is not None:
            self.perception.close()

    # -- the steps -------------------------------------------------------------------
    def _cancel_echo(self, chunk: VideoChunk) -> tuple[VideoChunk, np.ndarray | None]:
        """The chunk without the assistant's voice, and the played reference over it."""
        if self.control is None or self.echo is None:
            return chunk, None
        audio = as_audio(chunk.audio)
        history = self.echo.history_samples / SAMPLE_RATE
        reference = self.control.preview(chunk.start - history,
                                         chunk.start + len(audio) / SAMPLE_RATE)
        cleaned = self.echo.cancel(audio, reference)
        return replace(chunk, audio=cleaned), reference[self.echo.history_samples:]

    def _gate(self, frame: PerceptionFrame, audio: np.ndarray, reference: np.ndarray | None,
              start: float) -> None:
        for b in frame.boundaries:
            if b.kind == "offset":
                self.gate.offset(b.time)
            elif self.gate.episode is None and self._audible(reference, start, b.time):
                self.gate.onset(b.time, self._quiet(audio, start, b.time))

    def _audible(self, reference: np.ndarray | None, start: float, at: float) -> bool:
        if reference is None:
            return False
        a = int((at - start) * SAMPLE_RATE)
        window = reference[max(0, a - SAMPLE_RATE // 4): a + SAMPLE_RATE // 10]
        out = self.control
        return out.busy and rms_db(window) > self.options.audible_db or \
            (out.paused and out.current is not None)

    def _quiet(self, audio: np.ndarray, start: float, at: float) -> bool:
        a = int((at - start) * SAMPLE_RATE)
        segment = audio[max(0, a): a + int(self.options.gate.pause_after_s * SAMPLE_RATE)]
        if len(segment) < SAMPLE_RATE // 40:
            return False
        relative = self.perception.calibration.relative(rms_db(segment))
        return relative is not None and relative < -self.options.gate.quiet_db
