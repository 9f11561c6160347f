"""`EmbeddedFrontend`: the CPU default frontend, a documented rule policy over live cues.

Composition on top of `venus.perception` (what the user does), `venus.speech` (what the
assistant says, with its echo reference) and the policy modules `floor` (two-stage
overlap handling) and `intents` (answer, delegate, cancel, repeat). Per one-second chunk:

1. **Echo**: the output's played signal over the chunk is the reference; the canceller
   removes it from the input, so the assistant's own voice never reaches perception.
2. **Perception** of the cleaned chunk (`UserPerception`): VAD onsets/offsets at 32 ms,
   partial/final words from its background ASR worker (never waited for live; in
   deterministic mode they show one chunk after the speech, see
   `PerceptionConfig.deterministic`), loudness against the calibrated user, addressee cues, face cue
   (the omni mode only; ``mode="audio"`` is the paper's Audio frontend: frames unused).
3. **Gate** (stage one): a user onset while the assistant is audible ducks the output
   0.12 s later and pauses it at 0.3 s unless the voice is much quieter than the user;
   the output then plays up to the chunk's end with those actions at their samples.
4. **Policy** (stage two, at the boundary): an open overlap is classified
   (`floor.classify_overlap`); backchannel / other-directed / background resume the
   output where it paused (CONTINUE_SPEAKING), an interruption yields the floor (the
   session stops and flushes the queued output) and the new question is answered when
   the user's turn ends; if the new turn asks to repeat ("say that again"), the response
   is revised (REVISE_RESPONSE): it continues from the start of the sentence the user
   was hearing when it was cut (`resume_text`). A turn heard while silent is answered only if it is for the
   assistant (`floor.is_for_assistant`): directly from the video memory (extractive,
   ``memory.answer``), or delegated to the harness with a short acknowledgement
   (`intents.detect_intent`). Delivered results are spoken by the session when the floor
   is free; this frontend reports user speech so that never happens over the user.
   A turn or an overlap counts as ended only once its final words are in (perception's
   ``transcribing`` flag), since words arrive after the acoustic offset.
5. **Token**: ``<|speak|>`` while the assistant has speech playing or queued,
   ``<|turn_eos|>`` on the chunk its turn ended, ``<|listen|>`` otherwise.

Pass the same `AudioSpeechOutput` to the frontend and to ``Session(speech=...)``.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from memory.audio import rms_db
from memory.errors import MemoryToolkitError
from memory.media import SAMPLE_RATE, VideoChunk, as_audio
from memory.models.base import Word
from venus.clock import perf_seconds
from venus.errors import ConfigError
from venus.events import (
    ControlToken,
    Event,
    FloorAction,
    OverlapClassified,
    OverlapKind,
    SpeechDetected,
    UserWordsTranscribed,
)
from venus.frontend.base import Decision, DelegationRequest, SessionView
from venus.frontend.floor import (
    FloorPolicy,
    OverlapFacts,
    OverlapGate,
    classify_overlap,
    is_for_assistant,
    leading_name,
)
from venus.frontend.intents import Intent, detect_intent
from venus.perception import (
    AddresseeCues,
    PerceptionConfig,
    PerceptionFrame,
    UserPerception,
    lexical_cues,
)
from venus.speech import AudioSpeechOutput, EchoCanceller, EchoOptions

__all__ = ["EmbeddedFrontend", "EmbeddedOptions", "resume_text"]

logger = logging.getLogger(__name__)

MODES = ("omni", "audio")


@dataclass(frozen=True)
class EmbeddedOptions:
    """``mode``: "omni" (audio + frames) or "audio" (the Audio frontend: frames unused);
    ``floor``: overlap thresholds; ``echo``: the canceller; ``answer_k``: moments quoted."""

    mode: str = "omni"
    floor: FloorPolicy = field(default_factory=FloorPolicy)
    echo: EchoOptions = field(default_factory=EchoOptions)
    answer_k: int = 2
    audible_db: float = -50.0  # the output counts as audible above this level

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"unknown frontend mode {self.mode!r}; use 'omni' or 'audio'")


class EmbeddedFrontend:
    """The rule + embedding policy frontend (see the module docstring)."""

    def __init__(self, output: AudioSpeechOutput | None = None, *, memory: Any = None,
                 perception: UserPerception | None = None, mode: str | None = None,
                 options: EmbeddedOptions | None = None,
                 perception_config: PerceptionConfig | None = None) -> None:
        options = options or EmbeddedOptions()
        self.options = replace(options, mode=mode) if mode else options
        self.name = "embedded" if self.options.mode == "omni" else "embedded-audio"
        self.output = output
        self.memory = memory
        self.perception = perception or UserPerception(
            perception_config, faces=self.options.mode == "omni")
        self.echo = EchoCanceller(self.options.echo)
        self.gate = OverlapGate(output, self.options.floor,
                                self.perception.config.offset_silence_s) if output else None
        self._turn: list[Word] = []
        self._turn_start: float | None = None
        self._ignore_turn = False
        self._after_interrupt = False
        self._episode_words: tuple[Word, ...] = ()
        self._episode_final: list[Word] = []
        self._was_speaking = False
        self._last_cut: str = ""
        self._faces_seen = False
        self._turn_quiet: list[bool] = []  # per chunk of the turn: quieter than the user?
        self._background = False
        # Wall time per step as it runs live (bench): in deterministic mode the time the
        # step blocked on due ASR results is left out (kept in asr_wait_seconds), since
        # a live step never waits for the worker.
        self.step_seconds: deque[float] = deque(maxlen=100_000)
        self.asr_wait_seconds: deque[float] = deque(maxlen=100_000)
        # Partial words cost one Whisper pass per chunk; only an undecided overlap needs
        # them (a turn heard while silent is answered from its final words, and a
        # classified overlap such as a TV talking on is not listened to word by word),
        # so they are requested here, after the gate, instead of on every chunk.
        self._partials_wanted = self.perception.config.partials
        self.perception.config = replace(self.perception.config, partials=False)

    # -- one chunk -----------------------------------------------------------------
    def step(self, chunk: VideoChunk, view: SessionView) -> Decision:
        began, waited = perf_seconds(), self.perception.asr.waited_s
        try:
            return self._step(chunk, view)
        finally:
            wait = self.perception.asr.waited_s - waited
            self.asr_wait_seconds.append(wait)
            self.step_seconds.append(perf_seconds() - began - wait)

    def close(self) -> None:
        """Stop perception's ASR worker (call when the session is over)."""
        self.perception.close()

    def _step(self, chunk: VideoChunk, view: SessionView) -> Decision:
        audio, reference = self._cancel_echo(chunk)
        frames = chunk.frames if self.options.mode == "omni" else ()
        frame = self.perception.feed(replace(chunk, audio=audio, frames=frames))
        self._faces_seen = self._faces_seen or bool(frame.faces)
        self._gate(frame, audio, reference, chunk.start)
        if self._partials_wanted and self.gate is not None and self.gate.episode is not None:
            self.perception.request_partial()
        if self.output is not None:
            self.output.advance(chunk.end)
        perceived = self._perceived(frame, chunk)
        self._background = False
        floor, speech, delegations = self._policy(frame, view, perceived, chunk.end)
        if self._background:  # a TV or a far talker: not the user's words
            perceived = [e for e in perceived if not isinstance(e, UserWordsTranscribed)]
        return Decision(self._token(view, floor, speech), speech, floor, tuple(delegations),
                        tuple(perceived))

    def _cancel_echo(self, chunk: VideoChunk) -> tuple[np.ndarray, np.ndarray | None]:
        audio = as_audio(chunk.audio)
        if self.output is None:
            return audio, None
        history = self.echo.history_samples / SAMPLE_RATE
        reference = self.output.preview(chunk.start - history, chunk.start + len(audio) / SAMPLE_RATE)
        return self.echo.cancel(audio, reference), reference[self.echo.history_samples:]

    # -- stage one: the gate -------------------------------------------------------
    def _gate(self, frame: PerceptionFrame, audio: np.ndarray, reference: np.ndarray | None,
              start: float) -> None:
        if self.gate is None:
            return
        for b in frame.boundaries:
            if b.kind == "offset":
                self.gate.offset(b.time)
            elif self.gate.episode is None and self._audible(reference, start, b.time):
                self.gate.onset(b.time, self._quiet(audio, start, b.time))
                self._episode_words, self._episode_final = (), []

    def _audible(self, reference: np.ndarray | None, start: float, at: float) -> bool:
        if reference is None:
            return False
        a = int((at - start) * SAMPLE_RATE)
        window = reference[max(0, a - SAMPLE_RATE // 4): a + SAMPLE_RATE // 10]
        return self.output.busy and rms_db(window) > self.options.audible_db or \
            (self.output.paused and self.output.current is not None)

    def _quiet(self, audio: np.ndarray, start: float, at: float) -> bool:
        a = int((at - start) * SAMPLE_RATE)
        segment = audio[max(0, a): a + int(self.options.floor.pause_after_s * SAMPLE_RATE)]
        if len(segment) < SAMPLE_RATE // 40:
            return False
        relative = self.perception.calibration.relative(rms_db(segment))
        return relative is not None and relative < -self.options.floor.quiet_db

    # -- what was perceived ----------------------------------------------------------
    def _perceived(self, frame: PerceptionFrame, chunk: VideoChunk) -> list[Event]:
        events: list[Event] = []
        if frame.had_speech:
            start = frame.onsets[0] if frame.onsets else chunk.start
            end = frame.offsets[-1] if frame.offsets and not frame.speaking else chunk.end
            events.append(SpeechDetected(start, max(start, end)))
        if frame.prosody.rms_db is not None:
            self._turn_quiet.append(frame.prosody.quieter)
        if frame.final_words:
            w = frame.final_words
            events.append(UserWordsTranscribed(" ".join(x.text.strip() for x in w),
                                               w[0].start, w[-1].end))
            if self._turn_start is None:
                self._turn_start = w[0].start
            self._turn.extend(w)
        return events

    # -- stage two and turns -----------------------------------------------------------
    def _policy(self, frame: PerceptionFrame, view: SessionView, perceived: list[Event],
                now: float) -> tuple[FloorAction | None, str | None, list[DelegationRequest]]:
        floor: FloorAction | None = None
        if self.gate is not None and self.gate.episode is not None:
            floor = self._classify(frame, perceived, now)
        if frame.speaking or frame.transcribing:  # the turn's words are not all in yet
            if floor is None and not self._speaking(view) and frame.onsets and not self._turn:
                floor = FloorAction.AWAIT_INPUT
            return floor, None, []
        if not self._turn:
            return floor, None, []
        turn, self._turn, start = self._turn, [], self._turn_start
        quiet, self._turn_quiet = bool(self._turn_quiet) and all(self._turn_quiet), []
        self._turn_start = None
        if self._ignore_turn:
            self._ignore_turn = False
            self._background = self._background or quiet
            return floor, None, []
        return self._answer_turn(turn, start or now, view, floor, now, quiet, frame.cues)

    def _classify(self, frame: PerceptionFrame, perceived: list[Event],
                  now: float) -> FloorAction | None:
        ep = self.gate.episode
        self._episode_final += [w for w in frame.final_words if w.end > ep.onset - 0.3]
        self._episode_words = tuple(self._episode_final) + frame.partial_words
        ongoing = frame.speaking or frame.transcribing
        ended = ep.ended_at is not None and not ongoing
        if ep.ended_at is not None and not frame.speaking and frame.transcribing \
                and not (ep.quiet or frame.prosody.quieter):
            # The overlap is over and its final words are due next chunk: wait for them
            # (the output stays paused) rather than judge it by a partial of a clipped end.
            return None
        duration = (ep.ended_at if ended else now) - ep.onset
        cues = self._episode_cues_for(frame, duration)
        facts = OverlapFacts(cues, ep.quiet or frame.prosody.quieter, ended, duration,
                             len(self._episode_words),
                             frame.face_toward_camera if self._faces_seen else None)
        kind = classify_overlap(facts, self.options.floor)
        if kind is None:
            return None
        perceived.append(OverlapClassified(kind, " ".join(w.text.strip() for w in self._episode_words)))
        if kind is OverlapKind.INTERRUPTION:
            self.gate.clear()
            self._after_interrupt = True
            heard = self.output.heard_so_far() if self.output else None
            self._last_cut = resume_text(heard.text, heard.heard_text) if heard else ""
            return FloorAction.YIELD_FLOOR
        self.gate.release(now)
        self._background = kind is OverlapKind.BACKGROUND
        self._ignore_turn = ongoing or bool(self._turn)
        if not ongoing:
            self._turn, self._turn_start, self._ignore_turn = [], None, False
            self._turn_quiet = []
        return FloorAction.CONTINUE_SPEAKING

    def _episode_cues_for(self, frame: PerceptionFrame, duration: float):
        """Cues over everything said since the onset (not just the latest region), with
        the topical relation perception measured on the latest words."""
        text = " ".join(w.text.strip() for w in self._episode_words).strip()
        cues = lexical_cues(text, duration, self.perception.config)
        name = None if cues.other_name or cues.addressed_by_name else leading_name(text)
        if name:
            cues = replace(cues, other_name=name)
        if frame.cues.text and frame.cues.topic_similarity is not None:
            cues = replace(cues, topic_similarity=frame.cues.topic_similarity,
                           on_topic=frame.cues.on_topic)
        return cues

    def _answer_turn(self, turn: list[Word], start: float, view: SessionView,
                     floor: FloorAction | None, now: float, quiet: bool = False,
                     heard: AddresseeCues | None = None
                     ) -> tuple[FloorAction | None, str | None, list[DelegationRequest]]:
        text = " ".join(w.text.strip() for w in turn).strip()
        forced, self._after_interrupt = self._after_interrupt, False
        if not forced:
            cues = lexical_cues(text, turn[-1].end - start, self.perception.config)
            name = None if cues.other_name or cues.addressed_by_name else leading_name(text)
            cues = replace(cues, other_name=name) if name else cues
            if heard is not None and heard.text and heard.topic_similarity is not None:
                # the topical relation perception measured (on its ASR worker) on the words
                cues = replace(cues, topic_similarity=heard.topic_similarity,
                               on_topic=heard.on_topic)
            facts = OverlapFacts(cues, quiet, True, turn[-1].end - start, len(turn))
            if not is_for_assistant(facts, self.options.floor):
                self._background = quiet
                return floor, None, []
        intent = detect_intent(text, now)
        if forced and intent.kind == "none" and text:
            # The user took the floor from us: whatever they said gets a reply.
            intent = replace(intent, kind="answer")
        return self._act(intent, view, floor, now)

    def _act(self, intent: Intent, view: SessionView, floor: FloorAction | None, now: float
             ) -> tuple[FloorAction | None, str | None, list[DelegationRequest]]:
        if intent.kind == "delegate":
            request = DelegationRequest.new(intent.capability, intent.arguments)
            return floor, intent.ack, [request]
        if intent.kind == "cancel":
            target = _newest_open_item(view)
            if target is None:
                return floor, None, []
            return floor, intent.ack, [DelegationRequest.cancel(target)]
        if intent.kind == "repeat" and self._last_cut:
            said, self._last_cut = self._last_cut, ""
            return FloorAction.REVISE_RESPONSE, said, []
        if intent.kind in ("answer", "repeat"):
            reply = self._answer(intent.text, now)
            self.perception.set_context([intent.text, reply])
            return floor, reply, []
        return floor, None, []

    def _answer(self, question: str, now: float) -> str:
        memory = self.memory
        if memory is None:
            return "I have no video memory to answer that from."
        try:
            if hasattr(memory, "answer"):
                return memory.answer(question, at=now, k=self.options.answer_k).text
            hits = memory.search(question, k=1)  # a memory only holds what it has ingested
        except MemoryToolkitError as exc:
            logger.warning("memory lookup failed: %s", exc)
            return "I couldn't look that up in the video memory just now."
        if not hits:
            return "I have not seen anything about that yet."
        best = hits[0]
        return f"At {int(best.start) // 60}:{int(best.start) % 60:02d}, {best.text or best.transcript}"

    # -- tokens ----------------------------------------------------------------------
    def _speaking(self, view: SessionView) -> bool:
        return self.output.busy if self.output is not None else view.speaking

    def _token(self, view: SessionView, floor: FloorAction | None, speech: str | None
               ) -> ControlToken:
        stopping = floor in (FloorAction.YIELD_FLOOR, FloorAction.STOP_OUTPUT,
                             FloorAction.REVISE_RESPONSE)
        speaking = bool(speech) or (self._speaking(view) and not stopping)
        token = (ControlToken.SPEAK if speaking
                 else ControlToken.TURN_EOS if self._was_speaking else ControlToken.LISTEN)
        self._was_speaking = speaking
        return token


def resume_text(text: str, heard_text: str) -> str:
    """Where a revised answer picks up: the start of the sentence the user heard part of
    (they heard everything before it; what follows continues from what they heard)."""
    words = text.split()
    heard = min(len(heard_text.split()), len(words))
    start = 0
    for i in range(heard):
        if words[i].endswith((".", "!", "?")):
            start = i + 1
    return " ".join(words[start:])


def _newest_open_item(view: SessionView) -> str | None:
    """The item a "never mind" refers to: the newest one still running, else the newest
    result that is finished but not yet spoken (cancelling it keeps it from being said)."""
    if view.work:
        return max(view.work, key=lambda w: w.requested_at).item_id
    return view.results[-1].item_id if view.results else None
