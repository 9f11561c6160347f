"""`EmbeddedFrontend`: the CPU default frontend, a documented rule policy over live cues.

Policy only, on top of `venus.frontend.floor` (the overlap classifier) and
`venus.frontend.intents` (answer, delegate, cancel, repeat); the runtime's duplex I/O
(`venus.runtime.DuplexIO`) owns the audio path. What the runtime does per one-second
chunk before this frontend decides:

1. **Echo**: the output's played signal over the chunk is the reference; the canceller
   removes it from the input, so the assistant's own voice never reaches perception.
2. **Perception** of the cleaned chunk (`UserPerception`): VAD onsets/offsets at 32 ms,
   partial/final words from its background ASR worker (never waited for live; in
   deterministic mode they show one chunk after the speech, see
   `PerceptionConfig.deterministic`), loudness against the calibrated user, addressee
   cues, face cue (the omni mode only; ``mode="audio"`` is the paper's Audio frontend).
3. **Gate** (stage one): a user onset while the assistant is audible ducks the output
   0.12 s later and keeps it playing; the word probe reads the overlap's first words
   and the output pauses only on words that take the floor ("wait", "hold on", the
   assistant's name); the output then plays up to the chunk's end with those actions
   at their samples (docs/frontend.md, "Floor control: the rules").

What this frontend decides (`decide`):

4. **Policy** (stage two, at the boundary): an open overlap is classified
   (`floor.classify_overlap`); backchannel / other-directed / background release the
   output (CONTINUE_SPEAKING), an interruption yields the floor (the
   session stops and flushes the queued output) and the new question is answered when
   the user's turn ends; if the new turn asks to repeat ("say that again"), the response
   is revised (REVISE_RESPONSE): it continues from the start of the sentence the user
   was hearing when it was cut (`resume_text`). A turn heard while silent is answered only if it is for the
   assistant (`floor.is_for_assistant`): directly from the memory (``memory.answering``),
   or delegated to the harness with a short acknowledgement
   (`intents.detect_intent`). Delivered results are spoken by the session when the floor
   is free; this frontend reports user speech so that never happens over the user.
   A turn or an overlap counts as ended only once its final words are in (perception's
   ``transcribing`` flag), since words arrive after the acoustic offset.
5. **Token**: ``<|speak|>`` while the assistant has speech playing or queued,
   ``<|turn_eos|>`` on the chunk its turn ended, ``<|listen|>`` otherwise.

Build it with `venus.assistant` (which gives the frontend and the session's perception
the same `PerceptionConfig`), or pass ``config`` yourself.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from dataclasses import dataclass, field, replace

from memory.errors import MemoryToolkitError
from memory.media import VideoChunk
from memory.models.base import Word
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
from venus.frontend.base import Decision, DelegationRequest, DuplexFrame, Overlap, SessionView
from venus.frontend.floor import (
    FloorPolicy,
    OverlapFacts,
    classify_overlap,
    is_for_assistant,
    leading_name,
    opener_only,
    own_echo,
    takes_floor,
)
from venus.frontend.intents import Intent, detect_intent
from venus.harness.context import MemoryView
from venus.perception import AddresseeCues, PerceptionConfig, PerceptionFrame, lexical_cues

__all__ = ["CLARIFY", "EmbeddedFrontend", "EmbeddedOptions", "OverlapState", "TurnState",
           "resume_text"]

logger = logging.getLogger(__name__)

MODES = ("omni", "audio")
# What the assistant says to words spoken over its answer that it could not make out
# (`EmbeddedFrontend._misheard_bid`): a reply a listener hears, asking for them again.
CLARIFY = "Sorry, I didn't catch that. Could you say it again?"
CLARIFY_MIN_WORDS = 3
# ... over at least this long: a backchannel Whisper wrote as words ("Mm-hmm." heard as
# "And then then.", 0.7 s) is shorter than any question of three words
CLARIFY_MIN_S = 1.0

_NO_PERCEPTION = ("EmbeddedFrontend needs live perception of the user: build the session "
                  "with venus.assistant(...), or give Session a "
                  "DuplexIO(output, perception=UserPerception(config))")


@dataclass
class TurnState:
    """The user's turn being heard, replaced whole when it is taken: its final words so
    far, when it began, whether each voiced hop was quieter than the user, its words'
    events (recorded once it is settled), the speech not yet reported, and how it is to
    be judged (``ignore``: the rest of an overlap let pass, of ``released_kind``;
    ``unjudged``: an overlap the answer ended under, undecided; ``after_interrupt``: the
    user took the floor, so whatever they say gets a reply; ``resumes``: the words of the
    turn it goes on from, answered too soon, `TURN_PAUSE_S`)."""

    words: list[Word] = field(default_factory=list)
    start: float | None = None
    quiet: list[bool] = field(default_factory=list)
    held: list[Event] = field(default_factory=list)
    heard_span: tuple[float, float] | None = None
    ends: list[float] = field(default_factory=list)  # offsets judged the end of a turn
    ignore: bool = False
    released_kind: OverlapKind | None = None
    unjudged: bool = False
    after_interrupt: bool = False
    resumes: list[Word] = field(default_factory=list)


@dataclass
class OverlapState:
    """The open overlap episode, until it is classified: its onset, its words so far
    (final, then the newest partial), and whether each voiced hop was quiet."""

    onset: float | None = None
    words: tuple[Word, ...] = ()
    final: list[Word] = field(default_factory=list)
    quiet: list[bool] = field(default_factory=list)


@dataclass(frozen=True)
class EmbeddedOptions:
    """``mode``: "omni" (audio + frames) or "audio" (the Audio frontend: frames unused);
    ``floor``: overlap classifier thresholds; ``answer_k``: moments quoted; ``hop_s``: the
    cadence of its decisions (the session hears and decides in hops of this length)."""

    mode: str = "omni"
    floor: FloorPolicy = field(default_factory=FloorPolicy)
    answer_k: int = 2
    hop_s: float = 0.1

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"unknown frontend mode {self.mode!r}; use 'omni' or 'audio'")


def _tail_name_of_partial(text: str, name: str, partial: tuple[Word, ...]) -> bool:
    """Whether ``name`` is read only in the last word of a partial, after its first three
    words (a name that opens the words, "Hey Mike", "Wait, Sarah, ...", stands)."""
    words = [w.strip(" .,?!;:").lower() for w in text.split()]
    return bool(partial) and len(words) > 3 and words[-1] == name.lower() \
        and name.lower() not in words[:3]


class EmbeddedFrontend:
    """The rule + embedding policy frontend (see the module docstring).

    ``memory`` answers questions (any `venus.harness.MemoryView`: a ``memory.VideoMemory``
    or ``memory.NotesMemory``); ``config`` must be the `PerceptionConfig` of the
    session's perception (names for the addressee cues).
    """

    def __init__(self, memory: MemoryView | None = None, *, mode: str | None = None,
                 options: EmbeddedOptions | None = None,
                 config: PerceptionConfig | None = None) -> None:
        options = options or EmbeddedOptions()
        self.options = replace(options, mode=mode) if mode else options
        self.name = "embedded" if self.options.mode == "omni" else "embedded-audio"
        self.hop_s = self.options.hop_s
        self.memory = memory
        self.config = config or PerceptionConfig()
        self.reset()

    def reset(self) -> None:
        """Forget the conversation: the open turn, the overlap episode, what was cut."""
        self.turn = TurnState()
        self.overlap = OverlapState()
        self._was_speaking = False
        self._last_cut: str = ""
        self._cut_text = ""  # the whole utterance the last interruption cut
        self._cut_unheard = False  # ... and the user heard next to none of it
        self._said: deque[tuple[float, str]] = deque()  # (when, what) it decided to say
        self._faces_seen = False
        self._background = False
        self._topic: tuple[str, ...] | None = None
        self._ends: list[float] = []  # turn ends heard in the turn being answered
        self._answered: list[Word] = []  # the words of the last turn given a reply

    def close(self) -> None:
        """Nothing to release: perception and the output belong to the runtime."""

    # -- one chunk -----------------------------------------------------------------
    def decide(self, frame: DuplexFrame, view: SessionView) -> Decision:
        p = frame.perception
        if p is None:
            raise ConfigError(_NO_PERCEPTION)
        self._faces_seen = self._faces_seen or bool(p.faces)
        ep = frame.overlap
        if self.overlap.onset is not None and (ep is None or ep.onset != self.overlap.onset):
            # Closed undecided (the output had nothing more to say): judged with its words.
            self.turn.unjudged, self.overlap.onset = True, None
        elif frame.closed is not None and ep is None:
            # Begun and closed by the answer's end within one chunk: never seen open, the
            # same overlap the answer ended under all the same.
            self.turn.unjudged = True
        if ep is not None and ep.onset != self.overlap.onset:  # a new overlap episode
            self.overlap = OverlapState(ep.onset)
        perceived = self.turn.held + self._perceived(p, frame.chunk)
        self.turn.held = []
        self._background = False
        floor, speech, delegations = self._policy(frame, p, view, perceived, frame.end)
        if self.turn.words:  # the turn is not settled yet (its end is still open): its words
            # wait with it, so a TV's words never reach the timeline as the user's
            self.turn.held = [e for e in perceived if isinstance(e, UserWordsTranscribed)]
            perceived = [e for e in perceived if not isinstance(e, UserWordsTranscribed)]
        if self._background:  # a TV or a far talker: not the user's words
            perceived = [e for e in perceived if not isinstance(e, UserWordsTranscribed)]
        if speech:
            self._said.append((frame.end, speech))
        topic, self._topic = self._topic, None
        return Decision(self._token(frame, floor, speech), speech, floor, tuple(delegations),
                        tuple(perceived), topic)

    # -- what was perceived ----------------------------------------------------------
    def _perceived(self, frame: PerceptionFrame, chunk: VideoChunk) -> list[Event]:
        events: list[Event] = []
        if frame.had_speech:  # one SpeechDetected per stretch, at its end or the second's
            start = frame.onsets[0] if frame.onsets else chunk.start
            end = frame.offsets[-1] if frame.offsets and not frame.speaking else chunk.end
            begun = self.turn.heard_span[0] if self.turn.heard_span else start
            self.turn.heard_span = (begun, max(begun, end))
        whole_second = abs(chunk.end - round(chunk.end)) < 1e-6
        if self.turn.heard_span and (whole_second or not frame.speaking):
            events.append(SpeechDetected(*self.turn.heard_span))
            self.turn.heard_span = None
        if frame.prosody.rms_db is not None:
            self.turn.quiet.append(frame.prosody.quieter)
        self.turn.ends += frame.turn_ends
        if frame.final_words:
            w = frame.final_words
            events.append(UserWordsTranscribed(" ".join(x.text.strip() for x in w),
                                               w[0].start, w[-1].end))
            if self.turn.start is None:
                self.turn.start = w[0].start
            self.turn.words.extend(w)
        return events

    # -- stage two and turns -----------------------------------------------------------
    def _policy(self, duplex: DuplexFrame, frame: PerceptionFrame, view: SessionView,
                perceived: list[Event], now: float
                ) -> tuple[FloorAction | None, str | None, list[DelegationRequest]]:
        floor: FloorAction | None = None
        if duplex.overlap is not None:
            floor = self._classify(duplex, frame, perceived, now)
        if frame.speaking or frame.transcribing or frame.turn_open:  # not over yet
            if floor is None and not duplex.speaking and frame.onsets and not self.turn.words:
                floor = FloorAction.AWAIT_INPUT
            return floor, None, []
        if not self.turn.words:
            self.turn.unjudged = False  # all words are in, and there were none
            return floor, None, []
        taken = self.turn  # the turn is taken: a fresh one (how to judge it stays)
        self.turn = replace(taken, words=[], start=None, quiet=[], ends=[], resumes=[])
        turn, start, quiet = taken.words, taken.start, _mostly(taken.quiet)
        self._ends = taken.ends
        if taken.resumes:  # the rest of a turn answered too soon: answered whole
            turn, start = taken.resumes + turn, taken.resumes[0].start
            self._ends = [taken.resumes[-1].end, *taken.ends]
        if own_echo(_text(turn), self._own_speech(duplex, now)):
            # the assistant's own voice come back past the canceller: not the user's
            self.turn.ignore = self.turn.unjudged = False
            self._background = True
            return floor, None, []
        if self.turn.ignore or self.turn.unjudged:
            released = self.turn.ignore  # let pass as harmless, or never decided
            self.turn.ignore = self.turn.unjudged = False
            kind = self._judge_overlap(turn, start or now, quiet, frame.cues)
            late = kind is OverlapKind.INTERRUPTION and (
                not released or self.options.floor.recheck_finals)
            if late or not released:
                perceived.append(OverlapClassified(kind, _text(turn)))
            if not late and not released and self._misheard_bid(turn, start or now, quiet, frame.cues):
                return floor, CLARIFY, []
            if not late:  # words of a TV let pass are not the user's, however loud a hop
                self._background = self._background or quiet or (
                    released and self.turn.released_kind is OverlapKind.BACKGROUND)
                return floor, None, []
            self.turn.after_interrupt = True  # a question for us after all: answer it
            floor = FloorAction.YIELD_FLOOR if duplex.speaking else floor
            if duplex.speaking and duplex.heard is not None:
                self._cut(duplex.heard, duplex.overlap)
        decided = self._answer_turn(turn, start or now, view, floor, now, quiet, frame.cues)
        if decided[1]:
            self._answered = turn
        return decided

    def _misheard_bid(self, turn: list[Word], start: float, quiet: bool,
                      heard: AddresseeCues | None) -> bool:
        """Words the user began over the answer, judged after it ended, that read as for
        nobody: loud, `CLARIFY_MIN_WORDS` or more over `CLARIFY_MIN_S` or longer, not a
        backchannel, naming no one.
        Whisper misheard a question there ("Wait wait, ... the roots instead?" heard as
        "with the end of the road instead"): say so rather than stay silent."""
        duration = turn[-1].end - start
        if quiet or len(turn) < CLARIFY_MIN_WORDS or duration < CLARIFY_MIN_S:
            return False
        cues = self._turn_cues(_text(turn), duration, heard)
        return not (cues.backchannel or cues.other_name or cues.addressed_by_name)

    def _classify(self, duplex: DuplexFrame, frame: PerceptionFrame, perceived: list[Event],
                  now: float) -> FloorAction | None:
        """Stage two on the open overlap; the runtime releases or closes it from the
        `OverlapClassified` this adds to ``perceived``."""
        ep: Overlap = duplex.overlap
        self.overlap.final += [w for w in frame.final_words if w.end > ep.onset - 0.3]
        self.overlap.words = tuple(self.overlap.final) + frame.partial_words
        ongoing = frame.speaking or frame.transcribing
        ended = ep.ended_at is not None and not ongoing
        if frame.prosody.rms_db is not None:
            self.overlap.quiet.append(frame.prosody.quieter)
        # Quiet (rule 2) as the gate heard the onset, or in every voiced hop of the episode
        # once there are enough of them to say so (the gate's own 0.3 s window): one hop
        # holding only a soft onset or tail ("...bees?") does not make a loud overlap quiet.
        heard = self.overlap.quiet
        quiet = ep.quiet or (len(heard) >= QUIET_MIN_HOPS and all(heard))
        if ep.ended_at is not None and not frame.speaking and frame.transcribing \
                and not quiet:
            # The overlap is over and its final words are due next chunk: wait for them
            # (the output keeps playing, ducked) rather than judge it by a partial of a
            # clipped end.
            return None
        duration = (ep.ended_at if ended else now) - ep.onset
        cues = self._episode_cues_for(frame, duration)
        # Begun within a pause inside the turn just given a reply: the user is going on
        resumed = bool(self._answered) and ep.onset - self._answered[-1].end <= TURN_PAUSE_S
        facts = OverlapFacts(cues, quiet, ended, duration,
                             len(self.overlap.words),
                             frame.face_toward_camera if self._faces_seen else None, ep.stopped,
                             ep.named_other, resumed)
        text = " ".join(w.text.strip() for w in self.overlap.words)
        if own_echo(text, self._own_speech(duplex, now)):
            kind: OverlapKind | None = OverlapKind.BACKGROUND  # our own voice, heard back
        else:
            kind = classify_overlap(facts, self.options.floor)
        if kind is None:
            return None
        self.overlap.onset = None  # decided
        perceived.append(OverlapClassified(kind, " ".join(w.text.strip() for w in self.overlap.words)))
        if kind is OverlapKind.INTERRUPTION:
            self.turn.after_interrupt = True
            heard = duplex.heard
            self._last_cut = resume_text(heard.text, heard.heard_text) if heard else ""
            self._cut(heard, ep)
            if resumed:  # the reply cut was to part of this turn: the whole is answered
                self.turn.resumes, self._cut_text, self._cut_unheard = self._answered, "", False
            return FloorAction.YIELD_FLOOR
        self._background = kind is OverlapKind.BACKGROUND
        self.turn.released_kind = kind
        self.turn.ignore = ongoing or bool(self.turn.words)
        if not ongoing:
            self.turn = replace(self.turn, words=[], start=None, ignore=False, quiet=[])
        return FloorAction.CONTINUE_SPEAKING

    def _own_speech(self, duplex: DuplexFrame, now: float) -> list[str]:
        """What the assistant said lately (`OWN_SPEECH_S`), and what is playing now (a
        delivered result too): the words its echo would carry."""
        while self._said and self._said[0][0] < now - OWN_SPEECH_S:
            self._said.popleft()
        said = [text for _, text in self._said]
        return said + [duplex.heard.text] if duplex.heard is not None else said

    def _cut(self, heard, overlap: Overlap | None) -> None:
        """Remember the reply an interruption cut, and whether it is still owed
        (`_answer_turn`): its listener heard next to none of it (`UNHEARD_MAX_WORDS`) and
        did not claim the floor ("Wait, ..." on its first word does not want it)."""
        self._cut_text = heard.text if heard else ""
        opener = overlap is not None and takes_floor(overlap.words or "")
        self._cut_unheard = bool(heard) and heard.text != CLARIFY and not opener and \
            len(heard.heard_text.split()) <= UNHEARD_MAX_WORDS

    def _episode_cues_for(self, frame: PerceptionFrame, duration: float):
        """Cues over everything said since the onset (not just the latest region), with
        the topical relation perception measured on the latest words."""
        text = " ".join(w.text.strip() for w in self.overlap.words).strip()
        cues = lexical_cues(text, duration, self.config)
        name = None if cues.other_name or cues.addressed_by_name else leading_name(text)
        if name:
            cues = replace(cues, other_name=name)
        if cues.other_name and _tail_name_of_partial(text, cues.other_name, frame.partial_words):
            # A partial's last word is where Whisper's window cut the speech: a name
            # there after the opening words ("Wait, wait, can you tell me I'm out,
            # Maroon?" for "... about the roots instead") waits for the words after it.
            cues = replace(cues, other_name=None)
        if frame.cues.text and frame.cues.topic_similarity is not None:
            cues = replace(cues, topic_similarity=frame.cues.topic_similarity,
                           on_topic=frame.cues.on_topic)
        return cues

    def _judge_overlap(self, turn: list[Word], start: float, quiet: bool,
                       heard: AddresseeCues) -> OverlapKind:
        """An overlap judged on all its final words: one the assistant's turn ended under
        before it was decided, or one let pass as harmless (a late decision)."""
        text = _text(turn)
        facts = OverlapFacts(self._turn_cues(text, turn[-1].end - start, heard), quiet, True,
                             turn[-1].end - start, len(turn))
        return classify_overlap(facts, self.options.floor) or OverlapKind.BACKGROUND

    def _turn_cues(self, text: str, duration: float, heard: AddresseeCues | None) -> AddresseeCues:
        cues = lexical_cues(text, duration, self.config)
        name = None if cues.other_name or cues.addressed_by_name else leading_name(text)
        cues = replace(cues, other_name=name) if name else cues
        if heard is not None and heard.text and heard.topic_similarity is not None:
            # the topical relation perception measured (on its ASR worker) on the words
            cues = replace(cues, topic_similarity=heard.topic_similarity, on_topic=heard.on_topic)
        return cues

    def _answer_turn(self, turn: list[Word], start: float, view: SessionView,
                     floor: FloorAction | None, now: float, quiet: bool = False,
                     heard: AddresseeCues | None = None
                     ) -> tuple[FloorAction | None, str | None, list[DelegationRequest]]:
        text = " ".join(w.text.strip() for w in turn).strip()
        two = self._two_questions(turn, now)
        if two is not None:  # one question, one turn: each answered, in order
            self.turn.after_interrupt = False
            return floor, two, []
        forced, self.turn.after_interrupt = self.turn.after_interrupt, False
        if not forced:
            cues = self._turn_cues(text, turn[-1].end - start, heard)
            facts = OverlapFacts(cues, quiet, True, turn[-1].end - start, len(turn))
            if not is_for_assistant(facts, self.options.floor):
                self._background = quiet
                return floor, None, []
        intent = detect_intent(text, now)
        if forced and intent.kind == "none" and opener_only(text):
            # "Wait, wait." and a pause: they took the floor and have not said what for
            # yet; the output is stopped, and their next words are answered as forced.
            self.turn.after_interrupt = True
            return floor, None, []
        if forced and intent.kind == "none" and text:
            # The user took the floor from us: whatever they said gets a reply.
            intent = replace(intent, kind="answer")
        floor, speech, delegations = self._act(intent, view, floor, now)
        cut, self._cut_text = self._cut_text, ""
        unheard, self._cut_unheard = self._cut_unheard, False
        if forced and intent.kind == "answer" and speech and _same_words(speech, cut):
            # What they said, as heard, finds the very answer they cut in on: a misheard
            # question ("And what do the roots do?" heard "And let's do the root 2."). The
            # same answer again from the start is no reply: say so instead.
            return floor, CLARIFY, delegations
        if forced and unheard and cut and intent.kind == "answer" and speech \
                and not takes_floor(text):
            # The reply had only just begun when they asked something new: they cut in for
            # the new question, so it is answered first, then the one still owed ("At
            # 1:00, Bees ..." first was the old answer again to a listener). "Wait, ..." on
            # its first word wants the floor instead, not the rest of that reply.
            return floor, f"{speech} And your first question: {cut}", delegations
        return floor, speech, delegations

    def _two_questions(self, turn: list[Word], now: float) -> str | None:
        """A question the end-of-turn model heard end, then a second begun before its
        reply (the first's words came in while the user was already asking again): both
        answered, each as its own question, the second said to be the next one. None when
        the words hold no such end, or either part is not a question for the memory."""
        ends = [b for b in self._ends if any(w.start <= b for w in turn)
                and any(w.start > b for w in turn)]
        if not ends:
            return None
        b = ends[0]
        parts = [[w for w in turn if w.start <= b], [w for w in turn if w.start > b]]
        intents = [detect_intent(_text(p), now) for p in parts if p]
        if len(intents) != 2 or any(i.kind != "answer" for i in intents):
            return None
        replies = [self._answer(i.text, now) for i in intents]
        self._topic = (intents[-1].text, replies[-1])
        return f"{replies[0]} And your next question: {replies[1]}"

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
            self._topic = (intent.text, reply)
            return floor, reply, []
        return floor, None, []

    def _answer(self, question: str, now: float) -> str:
        memory = self.memory
        if memory is None:
            return "I have no video memory to answer that from."
        try:
            return memory.answer(question, at=now, k=self.options.answer_k).text
        except MemoryToolkitError as exc:
            logger.warning("memory lookup failed: %s", exc)
            return "I couldn't look that up in the video memory just now."

    # -- tokens ----------------------------------------------------------------------
    def _token(self, frame: DuplexFrame, floor: FloorAction | None, speech: str | None
               ) -> ControlToken:
        stopping = floor is not None and floor.stops_output
        speaking = bool(speech) or (frame.speaking and not stopping)
        token = (ControlToken.SPEAK if speaking
                 else ControlToken.TURN_EOS if self._was_speaking else ControlToken.LISTEN)
        self._was_speaking = speaking
        return token


OWN_SPEECH_S = 30.0  # the assistant's speech this recent may come back as echo
UNHEARD_MAX_WORDS = 2  # a cut reply heard no further than this was never really said
# A user's pause inside their turn, under the 0.8 s of silence a listener notices
# (`venus.eval.listener.SILENCE_S`): speech begun this soon after the last word of a turn
# given a reply goes on with that turn (`floor.OverlapFacts.resumed`).
TURN_PAUSE_S = 0.7
QUIET_MIN_HOPS = 3  # voiced hops of an overlap before it may be judged quiet (0.3 s)
TURN_QUIET_SHARE = 0.8  # of a turn's voiced hops quieter than the user: a quiet turn


def _mostly(quiet: list[bool]) -> bool:
    """A turn is quiet (a TV, a far talker) when most of its voiced hops are: a tenth of a
    second holding one loud syllable does not make it the user's (one-second chunks asked
    for every chunk, which a hop-sized burst now would undo)."""
    return bool(quiet) and sum(quiet) >= TURN_QUIET_SHARE * len(quiet)


def _same_words(a: str, b: str) -> bool:
    return bool(b) and re.sub(r"\W+", " ", a.lower()).split() == re.sub(r"\W+", " ", b.lower()).split()


def _text(words: list[Word]) -> str:
    return " ".join(w.text.strip() for w in words).strip()


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
