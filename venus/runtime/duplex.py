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
   assistant is audible opens an `venus.frontend.Overlap` and ducks the output at the
   onset's own samples; it keeps playing while the overlap is undecided, and pauses
   only when the word probe reads an opener that takes the floor (see `GatePolicy`);
   the output then plays up to the chunk's end with those actions applied
   (`OutputControl.advance`). When the output has nothing more to play the episode
   closes: what the user says then is a turn of its own.

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
from venus.frontend.floor import early_stop, murmur
from venus.perception import PerceptionFrame, UserPerception, lexical_cues
from venus.perception.transcription import AsrJob
from venus.speech import EchoCanceller, EchoOptions, OutputControl, SpeechOutput, TimedTextOutput
from venus.speech.base import PlaybackReport, PlaybackStatus

__all__ = ["DuplexIO", "DuplexOptions", "GatePolicy", "OverlapGate"]

_QUIET_WINDOW_S = 0.3  # of speech after an onset, to judge its level against the user
_LOUD_SLICE_S, _LOUD_STEP_S = 0.1, 0.05  # the acoustic cue: a slice of speech at the user's level
_HISTORY_S = 2.0  # cleaned input kept for the acoustic cue (two one-second chunks, as before)


@dataclass(frozen=True)
class GatePolicy:
    """Stage one of floor control, at 32 ms resolution inside the chunk.

    At a detected user onset while the output is audible the output is *ducked*
    ``duck_after_s`` later (Silero confirms an onset 64 ms after it starts, so 0.12 s
    lands within the 100-300 ms the design asks for) and keeps playing: it is never
    paused while the overlap is undecided. Unless the voice is ``quiet_db`` or more below
    the calibrated user (a TV, a far talker), the word probe reads its first words once
    it has lasted each of ``probe_at_s`` (an overlap that ended sooner, a bare "Wait.",
    is read once the VAD has confirmed its end); when they take the floor
    (`venus.frontend.floor.early_stop`: "wait", "sorry", "hold on", the assistant's
    name, ...) the output is paused there, as soon as the words are in. The probe reads
    on: when a later read calls someone else by name ("Wait, John, ...") the output plays
    on from there (ducked) and no later opener pauses it. The frontend's verdict at the
    chunk boundary then releases the output or stops it for good.

    The reads are dense in the first second, every 0.15 s from 0.25 s (a Silero onset
    is confirmed 64 ms in, and a one-syllable opener takes ~0.2 s): whether the probe
    can tell an opener from a clip varies from read to read ("Hold on" read at 0.35 s,
    "Bulldog" at 0.4 s, "Hold on" again at 0.55 s), and a sparse schedule (0.4 / 0.7 /
    1.0 s) waited up to 0.3 s for the next chance. Six reads at most, ~50-70 ms each on
    the probe's own worker (`venus bench frontend` prints them).

    The **acoustic cue** comes before any word: speech that is not quiet, still going on
    ``hold_after_s`` after the onset (no offset confirmed, and some 0.1 s of the cleaned
    input within the VAD's offset window before it, ``offset_silence_s``, as loud as the
    quiet rule asks: the echo is already removed; a pause shorter than that window is no
    end of speech, and the pause after an opener's comma, "Wait, | what ...", often falls
    on ``hold_after_s``), with no read
    visible by then that says it is harmless (a backchannel or murmur, a name of someone
    else), *holds* the output there (a backchannel still going then, "Mm-hmm" and "Yeah"
    last 0.3-0.5 s, is held until its first read says so). The hold is a pause that
    plays on by itself ``max_hold_s`` later, ducked, unless a read in that time takes the
    floor (then it is the stop, and the listener heard it at ``hold_after_s``, not when
    the words were read); a read saying backchannel or naming someone else ends it at
    once. So a harmless overlap costs at most ``max_hold_s`` of silence (0.5 s, under the
    0.8 s a listener tolerates, with room for a clause gap beside it), and the four reads
    seen in that time (0.25-0.7 s) can confirm it. ``hold_after_s=None`` turns it off.
    """

    duck_after_s: float = 0.12
    quiet_db: float = 8.0
    probe_at_s: tuple[float, ...] = (0.25, 0.4, 0.55, 0.7, 0.85, 1.0)
    hold_after_s: float | None = 0.3
    max_hold_s: float = 0.5


@dataclass(frozen=True)
class DuplexOptions:
    """``gate``: stage one; ``echo``: the canceller; ``audible_db``: the output counts as
    audible above this level (an onset over silence is no overlap); ``partials``: when
    perception re-transcribes the open region for partial words, "always" (every chunk:
    model frontends read them) or "overlap" (only while an overlap is open: the embedded
    policy reads words only there, and each partial costs a Whisper pass);
    ``sink_lag_s``: how far behind the session's clock the output is heard (a browser's
    playout: the app sets `DuplexIO.sink_lag_s` from the page's reports), so the echo
    reference is what the sink was playing, not what the session committed;
    ``sink_lead_s``: how much earlier than that report the echo may reach the input (a
    page counts its output latency, which an echo tapped inside the page, or a
    microphone stamped late, does not have: the bench's loopback came 0.07 s early, and
    the canceller, which only searched after the report, never learnt it); the canceller
    searches ``echo.max_delay_s`` past the earliest of those."""

    gate: GatePolicy = field(default_factory=GatePolicy)
    echo: EchoOptions = field(default_factory=EchoOptions)
    audible_db: float = -50.0
    partials: Literal["always", "overlap"] = "always"
    sink_lag_s: float = 0.0
    sink_lead_s: float = 0.1

    def __post_init__(self) -> None:
        if self.partials not in ("always", "overlap"):
            raise ConfigError(f"partials must be 'always' or 'overlap', got {self.partials!r}")


class OverlapGate:
    """Duck at a user onset while the output plays; pause on early words that take the
    floor (see `GatePolicy`). The gate only schedules; the output applies the actions at
    their samples when it plays past them. ``episode`` is the open `Overlap`, if any."""

    def __init__(self, output: OutputControl, policy: GatePolicy | None = None) -> None:
        self.output = output
        self.policy = policy or GatePolicy()
        # The end of the hop being heard: an action the gate takes on it plays from then
        # on, never earlier (the loudspeaker has already played up to there).
        self.now = 0.0
        self.episode: Overlap | None = None
        self.probes: list[AsrJob] = []  # the word probes of the open episode, in order
        self.read = 0  # how many of them have been acted on
        self.hold_checked = False  # whether the acoustic cue was looked at (once an episode)
        self.harmless = False  # a read of the open episode said backchannel or murmur

    def onset(self, at: float, quiet: bool) -> Overlap:
        """User speech began at ``at`` while the assistant was speaking. Inside an open
        episode whose speech had ended (a breath after "Oh." or "Hang on"), the same
        overlap goes on: it is open again and the probe keeps reading at its times."""
        if self.episode is None:
            self.episode = Overlap(at, quiet)
            self.probes, self.read, self.hold_checked, self.harmless = [], 0, False, False
            self.output.duck(self._not_before(at + self.policy.duck_after_s))
        elif self.episode.ended_at is not None:
            self.episode = replace(self.episode, ended_at=None)
        return self.episode

    def offset(self, at: float) -> None:
        """User speech ended at ``at``."""
        if self.episode is not None and self.episode.ended_at is None:
            self.episode = replace(self.episode, ended_at=at)

    def heard(self, words: str, at: float, stop: bool, named_other: bool = False,
              harmless: bool = False) -> None:
        """The probe read ``words`` at ``at``; ``stop``: they take the floor, pause there
        (a hold under way becomes the stop); ``named_other``: they call someone else by
        name ("Wait, John, ..."): play on from there, and no later opener pauses the
        output again; ``harmless``: a backchannel or murmur, which ends a hold."""
        ep = self.episode
        if ep is None:
            return
        held = ep.held_until is not None and at < ep.held_until
        self.harmless = self.harmless or harmless
        act = self._not_before(at)
        if named_other or ep.named_other:
            if ep.stopped or held:
                self.output.resume(act)
            self.episode = replace(ep, words=words, stopped=False, named_other=True,
                                   held_until=None)
            return
        if harmless and held and not ep.stopped:
            self.output.cancel_scheduled("resume")
            self.output.resume(act)
            self.episode = replace(ep, words=words, held_until=None)
            return
        self.episode = replace(ep, words=words, stopped=ep.stopped or stop,
                               held_until=None if stop else ep.held_until)
        if stop and not ep.stopped:
            if held:  # the hold is the stop: it no longer plays on by itself
                self.output.cancel_scheduled("resume")
            else:
                self.output.pause(act)

    def hold(self, at: float) -> None:
        """The acoustic cue (see `GatePolicy`): pause at ``at``, playing on by itself
        ``max_hold_s`` later unless a read takes the floor."""
        ep = self.episode
        self.hold_checked = True
        if ep is None or ep.stopped or ep.named_other or self.harmless:
            return
        at = self._not_before(at)
        until = at + self.policy.max_hold_s
        self.output.pause(at)
        self.output.resume(until)
        self.episode = replace(ep, held_until=until)

    def _not_before(self, at: float) -> float:
        return max(at, self.now)

    def release(self, at: float) -> None:
        """The overlap was harmless: full gain and playback again from ``at``."""
        at = self._not_before(at)
        self.output.cancel_scheduled("pause")
        self.output.cancel_scheduled("duck")
        self.output.resume(at)
        self.output.unduck(at)
        self.episode, self.probes, self.read = None, [], 0
        self.hold_checked = self.harmless = False

    def clear(self) -> None:
        """The floor was yielded (the output is stopped): forget the episode."""
        self.episode, self.probes, self.read = None, [], 0
        self.hold_checked = self.harmless = False


class DuplexIO:
    """Echo removal, perception, the overlap gate and the output of one session."""

    def __init__(self, output: SpeechOutput | None = None,
                 perception: UserPerception | None = None,
                 options: DuplexOptions | None = None) -> None:
        self.options = options or DuplexOptions()
        self.output: SpeechOutput = output if output is not None else TimedTextOutput()
        self.control = self.output if isinstance(self.output, OutputControl) else None
        self.perception = perception
        echo = replace(self.options.echo,
                       max_delay_s=self.options.echo.max_delay_s + self.options.sink_lead_s)
        self.echo = EchoCanceller(echo) if self.control is not None else None
        self.gate = (OverlapGate(self.control, self.options.gate)
                     if self.control is not None and perception is not None else None)
        # how late the VAD confirms an offset (the word probe reads a short overlap then)
        self._offset_delay_s = perception.config.offset_silence_s if perception else 0.0
        self._partials_in_overlap = (perception is not None and perception.config.partials
                                     and self.options.partials == "overlap")
        # the cleaned input of the last `_HISTORY_S` (the acoustic cue looks back into it)
        self._recent: tuple[np.ndarray, float] = (np.zeros(0, np.float32), 0.0)
        # the user holds the floor: speaking, or their turn's words or end still to come
        # (a background result waits for the reply to their turn, not only for silence)
        self.user_turn = False
        self.sink_lag_s = max(0.0, self.options.sink_lag_s)  # the sink's report, live
        self._quiet_pending: float | None = None  # an overlap's onset, its loudness unjudged
        self.played: list[PlaybackReport] = []  # what the output reported while heard
        if self._partials_in_overlap:
            # Requested here, after the gate, instead of on every chunk (see DuplexOptions).
            perception.config = replace(perception.config, partials=False)

    # -- one chunk -----------------------------------------------------------------------
    def hear(self, chunk: VideoChunk) -> DuplexFrame:
        """Clean, perceive and gate one chunk, and play the output up to its end."""
        heard, reference = self._cancel_echo(chunk)
        self._remember(as_audio(heard.audio), heard.start)
        if self.gate is not None:
            self.gate.now = chunk.end
        frame = self.perception.feed(heard) if self.perception is not None else None
        if frame is not None and self.gate is not None:
            self._gate(frame, heard.audio, reference, chunk.start)
            self._probe(chunk.end)
            if self._partials_in_overlap and self.gate.episode is not None:
                self.perception.request_partial()
        control, closed = self.control, None
        if control is not None:
            reports = control.advance(chunk.end)
            self.played += reports
            self._begun_over(frame, reports)
            if self.gate is not None and self.gate.episode is not None and not control.busy:
                # The assistant's turn is over: what the user says now is a turn, not an
                # overlap (the frontend judges it whole once its words are in).
                closed = self.gate.episode
                self.gate.release(chunk.end)
        self.user_turn = frame is not None and (frame.speaking or frame.transcribing
                                                or frame.turn_open)
        return DuplexFrame(heard, frame, self.gate.episode if self.gate else None,
                           self.output.busy, control.heard_so_far() if control else None,
                           closed)

    def take_played(self) -> list[PlaybackReport]:
        """The output's reports (started, finished, stopped) since the last call."""
        played, self.played = self.played, []
        return played

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
        elif decision.floor is not None and decision.floor.stops_output:
            gate.clear()

    def reset(self) -> None:
        """Forget the stream: perception, the echo path and any open overlap."""
        if self.perception is not None:
            self.perception.reset()
        if self.echo is not None:
            self.echo.reset()
        if self.gate is not None:
            self.gate.clear()
        self._recent = (np.zeros(0, np.float32), 0.0)
        self._quiet_pending = None

    def close(self) -> None:
        """Stop perception's ASR worker (joins it after its current job) and the output's
        synthesis worker, if it has one."""
        try:
            if self.perception is not None:
                self.perception.close()
        finally:
            close = getattr(self.output, "close", None)
            if callable(close):
                close()

    # -- the steps -------------------------------------------------------------------
    def _begun_over(self, frame: PerceptionFrame | None, reports: list[PlaybackReport]) -> None:
        """A reply that begins while the user is speaking (decided on the end of their
        turn, its first clause synthesized as they started again) is an overlap from its
        first sample: the gate treats it as one, so it is not talked through."""
        if self.gate is None or self.gate.episode is not None or frame is None \
                or not frame.speaking:
            return
        began = [r.time for r in reports if r.status is PlaybackStatus.STARTED]
        if began:
            self.gate.onset(began[-1], False)
            self._quiet_pending = began[-1]

    def _cancel_echo(self, chunk: VideoChunk) -> tuple[VideoChunk, np.ndarray | None]:
        """The chunk without the assistant's voice, and the played reference over it."""
        if self.control is None or self.echo is None:
            return chunk, None
        audio = as_audio(chunk.audio)
        history = self.echo.history_samples / SAMPLE_RATE
        # what the sink was playing then (the session's, that late), from up to
        # `sink_lead_s` before the sink's report
        lag = self.sink_lag_s - min(self.options.sink_lead_s, self.sink_lag_s)
        reference = self.control.preview(chunk.start - history - lag,
                                         chunk.start + len(audio) / SAMPLE_RATE - lag)
        cleaned = self.echo.cancel(audio, reference)
        return replace(chunk, audio=cleaned), reference[self.echo.history_samples:]

    def _gate(self, frame: PerceptionFrame, audio: np.ndarray, reference: np.ndarray | None,
              start: float) -> None:
        for b in frame.boundaries:
            if b.kind == "offset":
                self.gate.offset(b.time)
            elif self.gate.episode is not None:
                self.gate.onset(b.time, self.gate.episode.quiet)  # the overlap goes on
            elif self._audible(reference, start, b.time):
                # how loud it is is judged once its first `_QUIET_WINDOW_S` is heard (a
                # hop holds a tenth of a second: a soft first syllable is not a TV)
                self.gate.onset(b.time, False)
                self._quiet_pending = b.time
        self._judge_quiet(start + len(audio) / SAMPLE_RATE)

    def _judge_quiet(self, now: float) -> None:
        """The open overlap is quiet (a TV, a far talker: rule 2) when its first
        `_QUIET_WINDOW_S` is ``quiet_db`` or more below the user, judged once it is heard."""
        at, ep = self._quiet_pending, self.gate.episode
        if at is None:
            return
        if ep is None or ep.onset != at:
            self._quiet_pending = None
            return
        if now < at + _QUIET_WINDOW_S - 1e-9:
            return
        self._quiet_pending = None
        if self._quiet_over(at, at + _QUIET_WINDOW_S):
            self.gate.episode = replace(ep, quiet=True)

    def _probe(self, now: float) -> None:
        """Read the open overlap's first words at each probe time it has reached by
        ``now``, in order, acting on each read visible by then; once one paused the
        output, they go on: a later read may name someone else (see `GatePolicy`)."""
        gate, ep = self.gate, self.gate.episode
        if ep is None or ep.quiet or self._quiet_pending is not None:
            return  # a quiet voice is never read; how loud it is is judged first
        self._read_probes(now)
        for after in self.options.gate.probe_at_s[len(gate.probes):]:
            at = ep.onset + after
            # A short "Wait." may end before the first probe time: read it once the VAD
            # has confirmed its end (the audio after the end is silence anyway).
            last = ep.ended_at is not None and ep.ended_at + self._offset_delay_s < at
            if last:
                at = ep.ended_at + self._offset_delay_s
            if at > now or (gate.probes and at <= gate.probes[-1].submitted + 1e-6):
                break
            gate.probes.append(self.perception.probe(ep.onset, at))
            self._read_probes(now)
            if last:
                break

    def _read_probes(self, now: float) -> None:
        """Act on the probes visible at ``now``, in order: each once."""
        gate = self.gate
        while gate.read < len(gate.probes):
            job = gate.probes[gate.read]
            words = self.perception.probe_words(job, now)
            if words is None:
                break
            seen = max(job.due, job.submitted)
            self._acoustic_cue(now, before=seen)  # in time order with the reads
            gate.read += 1
            text = " ".join(w.text for w in words).strip()
            if text:
                config = self.perception.config
                cues = lexical_cues(text, 1.0, config)
                harmless = cues.backchannel or murmur(text)
                gate.heard(text, seen, early_stop(text, config), cues.other_directed, harmless)
        self._acoustic_cue(now)

    def _acoustic_cue(self, now: float, before: float = float("inf")) -> None:
        """Hold the output at ``hold_after_s`` into a loud overlap still going on (see
        `GatePolicy`), once that time is reached by ``now`` and comes before ``before``
        (the next read's), from what was known then."""
        gate, after = self.gate, self.options.gate.hold_after_s
        ep = gate.episode
        if after is None or ep is None or gate.hold_checked:
            return
        at = ep.onset + after
        if at > now or at >= before:
            return
        gate.hold_checked = True
        if ep.ended_at is not None and ep.ended_at + self._offset_delay_s <= at:
            return  # over, and the VAD had said so by then
        if self._loud_within(at - max(self._offset_delay_s, _LOUD_SLICE_S), at):
            gate.hold(at)

    def _loud_within(self, start: float, end: float) -> bool:
        """Whether some `_LOUD_SLICE_S` of the cleaned input in [start, end) is `_loud`."""
        steps = max(0, round((end - start - _LOUD_SLICE_S) / _LOUD_STEP_S))
        return any(self._loud(end - _LOUD_SLICE_S - i * _LOUD_STEP_S, end - i * _LOUD_STEP_S)
                   for i in range(steps + 1))

    def _remember(self, audio: np.ndarray, start: float) -> None:
        kept, origin = self._recent
        if len(kept) and abs(origin + len(kept) / SAMPLE_RATE - start) > 0.5 / SAMPLE_RATE:
            kept = kept[:0]  # a gap: what came before no longer lines up
        if not len(kept):
            origin = start
        kept = np.concatenate([kept, audio])
        drop = max(0, len(kept) - int(_HISTORY_S * SAMPLE_RATE))
        self._recent = (kept[drop:], origin + drop / SAMPLE_RATE)

    def _loud(self, start: float, end: float) -> bool:
        """Whether the cleaned input over [start, end) (inside the last `_HISTORY_S`) is
        speech at the user's level: not quiet by the gate's rule, above -50 dBFS."""
        audio, origin = self._recent
        a, b = (max(0, round((t - origin) * SAMPLE_RATE)) for t in (start, end))
        segment = audio[a:b]
        if len(segment) < SAMPLE_RATE // 40:
            return False
        level = rms_db(segment)
        calibration = self.perception.calibration
        relative = calibration.relative(level)
        return level > self.options.audible_db and (
            relative is None or relative >= -(self.options.gate.quiet_db + calibration.extra_db))

    def _audible(self, reference: np.ndarray | None, start: float, at: float) -> bool:
        """Whether the output was audible from 0.25 s before the onset ``at`` to 0.1 s
        after it. An onset the VAD confirmed in the chunk after it began reaches back
        before this chunk's reference: that part is read from what the output played (a
        pause between two clauses just after the boundary is not silence before it)."""
        if reference is None:
            return False
        a = int((at - start) * SAMPLE_RATE)
        if a - SAMPLE_RATE // 4 < 0:
            window = self.control.preview(at - 0.25 - self.sink_lag_s, at + 0.1 - self.sink_lag_s)
        else:
            window = reference[a - SAMPLE_RATE // 4: a + SAMPLE_RATE // 10]
        out = self.control
        return out.busy and rms_db(window) > self.options.audible_db or \
            (out.paused and out.current is not None)

    def _quiet_over(self, start: float, end: float) -> bool:
        audio, origin = self._recent
        a, b = (max(0, round((t - origin) * SAMPLE_RATE)) for t in (start, end))
        segment = audio[a:b]
        if len(segment) < SAMPLE_RATE // 40:
            return False
        calibration = self.perception.calibration
        relative = calibration.relative(rms_db(segment))
        return relative is not None and relative < -(self.options.gate.quiet_db +
                                                     calibration.extra_db)
