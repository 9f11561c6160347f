"""Floor control for overlapping speech: the overlap classifier.

Policy layer under `venus.frontend.embedded` (data + pure functions; no models). Stage one
is the runtime's gate (`venus.runtime.OverlapGate`: duck at an onset, keep playing, pause
only on early words that take the floor, `early_stop`); stage two is `classify_overlap`
on every hop the frontend decides. **The rule table is in docs/frontend.md ("Floor
control: the rules"), and only there**; the comments below name its rules by number.

Where each part of the interruption rule lives:

=====================================  ===============================================
the words that claim the floor         here: `FLOOR_OPENERS` (`takes_floor`, `early_stop`)
onset, duck, hold, pause (stage one)   `venus.runtime.duplex` (`OverlapGate`, `GatePolicy`)
the word probe's reads                 `venus.perception.probe`, read by the gate
the verdict on the overlap (stage 2)   here: `classify_overlap`, called by the frontend
stop and flush on the verdict          `venus.runtime.session` (`FloorAction.stops_output`)
the turn after it, its end and reply   `venus.frontend.embedded` (turn state), with the
                                       end-of-turn model in `venus.perception.turn`
=====================================  ===============================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from venus.events import OverlapKind
from venus.perception.addressee import lexical_cues
from venus.perception.config import PerceptionConfig
from venus.perception.types import AddresseeCues

_MURMUR = re.compile(r"^\W*((m+|h?m+h?m+|mhm+|uh+|um+|ah+|oh+|hm+)\W*)+$")

__all__ = ["FloorPolicy", "OverlapFacts", "classify_overlap", "early_stop", "is_for_assistant",
           "leading_name", "murmur", "opener_only", "own_echo", "takes_floor"]


@dataclass(frozen=True)
class FloorPolicy:
    """Thresholds of the overlap classifier (stage two; the gate's are
    `venus.runtime.GatePolicy`)."""

    max_undecided_s: float = 2.5
    recheck_finals: bool = True  # judge a let-pass overlap again on its final words
    min_interrupt_words: int = 2


@dataclass(frozen=True)
class OverlapFacts:
    """What the classifier looks at, gathered from one chunk's perception."""

    cues: AddresseeCues
    quiet: bool
    ended: bool
    duration: float
    words: int
    face_toward_camera: bool | None = None
    stopped: bool = False  # the gate paused the output on early words that take the floor
    named_other: bool = False  # the word probe read a name of someone else ("Wait, John,")
    resumed: bool = False  # begun within a pause inside the user's turn, over its reply


def classify_overlap(f: OverlapFacts, policy: FloorPolicy = FloorPolicy()) -> OverlapKind | None:
    """The overlap kind by the rule table (docs/frontend.md); None while undecided."""
    c = f.cues
    if c.addressed_by_name:  # rule 1
        return OverlapKind.INTERRUPTION
    # A bid for the floor: in the words, or the opener the gate's word probe stopped on
    # (the final words may have lost it: "Hold on, ..." heard as "Fold on, watch out ...").
    bid = takes_floor(c.text) or f.stopped
    if f.quiet:  # rule 2
        # A soft onset ("hang on, ...") can read as quiet: an on-topic bid for the floor
        # or question is still the user's.
        asks = c.question or c.request or bid
        return OverlapKind.INTERRUPTION if asks and c.on_topic is not False else OverlapKind.BACKGROUND
    if c.other_directed or (f.named_other and not f.ended):  # rule 3
        # (the probe's name stands until the final words are in, which are judged again)
        return OverlapKind.OTHER_DIRECTED
    short = f.ended and 1 <= f.words <= 2 and f.duration <= 1.5 and not (c.question or c.request or bid)
    if (c.backchannel or _MURMUR.match(c.text.lower())) and (f.ended or f.duration > 1.5) or short:  # rule 4
        return OverlapKind.BACKCHANNEL
    if c.backchannel or _MURMUR.match(c.text.lower()):
        return None  # rule 5: "yeah..." may be the start of "yeah, but why...": wait for the end
    if f.resumed and f.words:  # rule 5b
        # The user went on after a pause inside their turn ("Wait, is that right? | I
        # thought plants eat soil."), over the reply just begun to its first part: still
        # their turn, whatever the topic the words seem to be on (heard "I got planned.").
        return OverlapKind.INTERRUPTION
    if c.request and not c.question and (c.room or not bid) and c.on_topic is False:  # rule 6
        # "Please turn the oven off" over our answer about leaves: an off-topic command
        # while we talk is for someone in the room (a question or a bid still interrupts,
        # unless what is asked is done with the hands: "Wait, can you close the window?"
        # is for someone who can). One or two words of speech still going on wait for
        # the rest, as rule 9 does: "Stop. Can you explain ..." was first read "Start.".
        return OverlapKind.OTHER_DIRECTED if f.ended or f.words >= 3 else None
    if c.question or c.request or bid:  # rules 7, 8
        # Partial words of speech still going on that the gate let play: a question not
        # on the topic ("Hey, nay, did you drop?", Whisper's first take of "Hey David,
        # grab my keys") may be for someone else: keep speaking until its final words
        # are in. And speech still going on after the gate paused the output on its
        # opener: the listener already hears the pause, and "Wait, John, can you ..."
        # is for John: wait for the words that say whom it is for.
        # Likewise an opener alone in speech still going on, paused or not ("Hang on."
        # [breath] "Tom, where are my keys?" when the probe missed the opener): the
        # words after it say whom it is for.
        unsure = not (f.ended or bid) and c.on_topic is not True
        paused = f.stopped and not f.ended
        opener_only = bid and not f.ended and not (c.question or c.request or _ABOUT.search(c.text.lower()))
        if (unsure or paused or opener_only) and f.duration < policy.max_undecided_s:
            return None
        return OverlapKind.INTERRUPTION
    if f.words and (c.on_topic is False or f.face_toward_camera is False) \
            and not (_HESITATION.match(c.text.lower()) and (not f.ended or f.duration > 1.5)):  # rule 9
        if not f.ended and _UNSETTLED.search(c.text.lower()) and f.duration < policy.max_undecided_s:
            return None
        return OverlapKind.OTHER_DIRECTED if f.ended or f.words >= 3 else None
    if f.words >= policy.min_interrupt_words:  # rule 10
        return OverlapKind.INTERRUPTION
    if f.ended:  # rules 11, 12
        return OverlapKind.BACKCHANNEL if f.words else OverlapKind.BACKGROUND
    if f.duration >= policy.max_undecided_s:  # rule 13
        return OverlapKind.INTERRUPTION
    return None


# What may come before an opener: murmurs and interjections ("Oh, wait", "Mm. Hold on":
# the words of an overlap are read from its onset, so a first short region leads).
_LEAD = r"^\W*(?:(?:oh|ah|um+|uh+|er|m+|hm+|okay|ok|so|well|yeah|no|and|but)\b\W*)*"
# The words that claim the floor, one list for both readers: the classifier on whole
# words (`takes_floor`) and the gate's word probe on the first half second (`early_stop`).
# "Wait, ...", "Hold on, ...": the speaker claims the floor (alone too: a bare "Wait." is
# the first region of "Wait. What do the roots do?" when the user pauses after it), and
# "what about X" asks even when ASR drops the question mark.
# "No, no, ..." (a no said twice) corrects the speaker and claims the floor too; one "no"
# may answer someone else, so it only leads (`_LEAD`).
FLOOR_OPENERS = ("sorry to cut in", "sorry to interrupt", "sorry to butt in",
                 "wait", "hold on", "hang on", "stop", "sorry", "excuse me", "actually",
                 "pardon", "one second", "one sec", "just a second", "just a sec", "no, no")
_OPENERS = "|".join(re.escape(o).replace(r",\ ", r"\W+") for o in FLOOR_OPENERS)
_FLOOR_OPENER = re.compile(_LEAD + r"(" + _OPENERS + r")\b|\b(what|how) about\b")


def murmur(text: str) -> bool:
    """Whether ``text`` is only murmurs ("mm", "uh-huh", "hmm"): no words."""
    return bool(_MURMUR.match(text.lower()))


_ABOUT = re.compile(r"\b(what|how) about\b")
# Rule 9's exceptions: a hesitation ("um", "uh", "er"; not "uh-huh") says the speaker is
# about to go on to whoever they are talking with (in speech still going on, or that
# lasted longer than a backchannel: a "Hmm." with the echo under it was heard "uh and m");
# a lead word or a question word in words still going on may be the start of a question
# Whisper's partial misheard.
_HESITATION = re.compile(r"^\W*(?:um+|uh+|erm?)\b(?!-)")
_UNSETTLED = re.compile(r"^\W*(?:okay|ok|so|well|and|oh)\b|\b(?:what|why|how|where|when|which|who)\b")


def takes_floor(text: str) -> bool:
    """Whether ``text`` opens by claiming the floor ("wait", "hold on", ...) or asks
    "what/how about ..."."""
    return bool(_FLOOR_OPENER.search(text.lower()))


_OPENER_ONLY = re.compile(_LEAD + r"(?:(?:" + _OPENERS + r")\b\W*)+$")


def opener_only(text: str) -> bool:
    """Whether ``text`` is nothing but floor-taking openers ("Wait, wait.", "Hold on"):
    the user has taken the floor and not yet said what for."""
    return bool(_OPENER_ONLY.match(text.lower()))


_LEADING = re.compile(r"^\s*([A-Z][a-z'\-]+)\s*[.,!]\s+\S")
# A vocative that ASR wrote without punctuation: "Lisa did you feed the cat": a capitalised
# word, then a word that opens a question or request to that person.
_LEADING_BARE = re.compile(
    r"^\s*([A-Z][a-z'\-]+)\s+(did|do|does|can|could|would|will|are|have|has|please|"
    r"you|you're|we're|we|come|grab|pass|close|turn|bring|get|go|take|let's|don't)\b")
_NOT_NAMES = frozenset({
    "what", "when", "where", "which", "who", "whose", "why", "how", "is", "are", "was",
    "were", "can", "could", "would", "will", "should", "do", "does", "did", "have", "has",
    "tell", "show", "explain", "describe", "find", "give", "remind", "help", "say", "i",
    "you", "we", "they", "he", "she", "it", "this", "that", "these", "those", "the", "a",
    "an", "there", "here", "if", "maybe", "then", "let", "let's", "please",
})
_INTERJECTIONS = frozenset({
    "okay", "ok", "yeah", "yes", "no", "so", "well", "wait", "hey", "oh", "um", "uh", "now",
    "right", "sorry", "please", "actually", "alright", "hmm", "thanks", "look", "listen",
    "and", "but", "also", "then", "see", "hi", "hello", "sure", "fine", "great", "good",
    "stop", "hold", "what", "why", "how", "really", "wow", "cool", "nice", "true", "exactly",
})


def leading_name(text: str) -> str | None:
    """A capitalised first word set off by punctuation ("Sarah. Close the door.") that is
    not an interjection: a name the speaker calls out (ASR often writes the vocative's
    comma as a full stop, which the perception's vocative rule does not accept), or with
    no punctuation at all when a question or request to that person follows ("Lisa did
    you ...", "Tom grab the keys")."""
    m = _LEADING.match(text) or _LEADING_BARE.match(text)
    if not m or m.group(1).lower() in _INTERJECTIONS or m.group(1).lower() in _NOT_NAMES:
        return None
    return m.group(1)


def is_for_assistant(f: OverlapFacts, policy: FloorPolicy = FloorPolicy()) -> bool:
    """Whether a finished utterance heard while the assistant was silent is meant for it."""
    if not f.words:
        return False
    kind = classify_overlap(OverlapFacts(f.cues, f.quiet, True, f.duration, f.words,
                                         f.face_toward_camera), policy)
    if kind is OverlapKind.OTHER_DIRECTED and f.cues.request and not f.cues.other_directed:
        # Rule 6 (an off-topic command over our answer is for someone in the room) is
        # about speech over a reply: to a silent assistant, "Tell me about acids and
        # bases" after a talk about DNA is a new topic, asked of it.
        return True
    return kind is OverlapKind.INTERRUPTION


# What the first half second of an interruption sounds like: a floor-taking opener, or a
# "what about ..." wherever the probe read it; "old on" is Whisper's "hold on" with a soft
# h dropped (read so at 0.25-0.45 s). Names of other people are not used here:
# the probe mishears most of them, and a wrong stop is a silence the listener hears.
_EARLY_OPENER = re.compile(
    # the openers, and how the probe reads them clipped: "hold" (cut before "on"), "old on"
    # (Whisper's "hold on" with a soft h dropped, read so at 0.25-0.45 s)
    _LEAD + r"(" + _OPENERS + r"|hold|old on)\b|\b(what|how) about\b"
    # the clip ends mid-word: "actually" read as "actual" (alone, or repeated, at its end)
    r"|" + _LEAD + r"(actual\W*)+$")


# A question that opens with no opener: a question word and the word after it, first
# (after a murmur or "and", "so", "but"): "So how do", "and what do the", "Um, why are".
# A loud question over the answer is a bid for the floor (rule 8); a lone "What?" is not
# enough, and a name first ("Lisa, did you") is for Lisa.
# Cut right after the question word it is still one when a murmur or "and", "so", "but"
# led to it ("and what?", "um, why").
_EARLY_QUESTION = re.compile(
    _LEAD + r"(?:(what|what's|how|why|where|when|which|who)\W+[a-z']"
    r"|(?<=[a-z])\W+(what|how|why|where|when)\b)")


def early_stop(text: str, config: PerceptionConfig | None = None) -> bool:
    """Whether the first words of an overlap (the word probe's) take the floor, ask a
    question or address the assistant, so the gate stops the output before any full
    transcript."""
    if not text.strip():
        return False
    low = text.lower()
    return bool(_EARLY_OPENER.search(low) or _EARLY_QUESTION.search(low)) \
        or lexical_cues(text, 0.5, config or PerceptionConfig()).addressed_by_name


ECHO_MIN_WORDS = 4  # fewer words than this cannot be told from a user quoting us
ECHO_SHARE = 0.8  # of the heard words found among the assistant's own: its echo


def own_echo(text: str, said: Sequence[str]) -> bool:
    """Whether ``text`` (words heard from the microphone) is the assistant's own recent
    speech ``said`` come back through a loudspeaker the canceller missed: at least
    `ECHO_MIN_WORDS` words, `ECHO_SHARE` of them among its own words (numbers as digits
    and times split: "0:06" is "0 06")."""
    heard = _words(text)
    if len(heard) < ECHO_MIN_WORDS or not said:
        return False
    own = {w.lstrip("0") or "0" for s in said for w in _words(s)}
    found = sum((w.lstrip("0") or "0") in own for w in heard)
    return found >= ECHO_SHARE * len(heard)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())
