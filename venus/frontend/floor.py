"""Floor control for overlapping speech: the overlap classifier.

Policy layer under `venus.frontend.embedded` (data + pure functions; no models). Overlap
while the assistant speaks is handled in two stages:

1. **Gate** (`venus.runtime.OverlapGate`, in the runtime's duplex I/O, 32 ms resolution,
   inside the chunk, for every frontend): at a detected user onset
   the output is *ducked* ``duck_after_s`` later (Silero confirms an onset 64 ms after it
   starts, so 0.12 s lands within the 100-300 ms the design asks for) and, unless the new
   voice is much quieter than the calibrated user (a TV, a far talker) or has already
   stopped, *paused* at ``pause_after_s``: the cursor holds, nothing queued is lost, and
   the assistant is silent within 0.3 s of a real interruption.
2. **Classifier** (`classify_overlap`, at the chunk boundary, on the words so far):

   ======================  ================================================  =============
   rule (first match)      cue                                               kind
   ======================  ================================================  =============
   1 addressed to us       assistant's name or wake phrase                   interruption
   2 quieter               level ``quiet_db`` or more below the user         background
                           (unless it asks or bids for the floor on topic:   (interruption)
                           a soft "hang on, ..." onset)
   3 named someone else    a vocative/name of another person, not ours       other-directed
   4 backchannel           lexicon + short, and the speech has ended; or a   backchannel
                           murmur ("mm mm"), or <= 2 words in <= 1.5 s that
                           ask nothing
   5 off-topic command     a request/imperative, no question, off topic      other-directed
   5 asks something        question, second-person request, imperative, or   interruption
                           a floor-taking opener ("wait, ...", "hold on,
                           ...", "sorry, ...") or "what/how about ..."
   6 off topic, no ask     MiniLM similarity below threshold; or face turned  other-directed
                           away from the camera (omni mode)
   7 two or more words     a loud, on-topic statement ("no, that's wrong")   interruption
   8 ended, < 2 words      a murmur / one non-lexicon word                   backchannel
   9 ended, no words       unintelligible                                    background
   ======================  ================================================  =============

   Still talking with nothing decisive yet: undecided (stay paused), until
   ``max_undecided_s`` of loud speech, which is an interruption. Backchannel,
   other-directed and background resume the output where it paused; an interruption
   yields the floor (the session stops and flushes the queued output) and the new
   question is answered once the user's turn ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from venus.events import OverlapKind
from venus.perception.types import AddresseeCues

_MURMUR = re.compile(r"^\W*((m+|h?m+h?m+|mhm+|uh+|um+|ah+|oh+|hm+)\W*)+$")

__all__ = ["FloorPolicy", "OverlapFacts", "classify_overlap", "is_for_assistant",
           "leading_name"]


@dataclass(frozen=True)
class FloorPolicy:
    """Thresholds of the overlap classifier (stage two; the gate's are
    `venus.runtime.GatePolicy`)."""

    max_undecided_s: float = 2.5
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


def classify_overlap(f: OverlapFacts, policy: FloorPolicy = FloorPolicy()) -> OverlapKind | None:
    """The overlap kind by the table in the module docstring; None while undecided."""
    c = f.cues
    if c.addressed_by_name:
        return OverlapKind.INTERRUPTION
    bid = _takes_floor(c.text)
    if f.quiet:
        # A soft onset ("hang on, ...") can read as quiet: an on-topic bid for the floor
        # or question is still the user's.
        asks = c.question or c.request or bid
        return OverlapKind.INTERRUPTION if asks and c.on_topic is not False else OverlapKind.BACKGROUND
    if c.other_directed:
        return OverlapKind.OTHER_DIRECTED
    short = f.ended and 1 <= f.words <= 2 and f.duration <= 1.5 and not (c.question or c.request or bid)
    if (c.backchannel or _MURMUR.match(c.text.lower())) and (f.ended or f.duration > 1.5) or short:
        return OverlapKind.BACKCHANNEL
    if c.backchannel or _MURMUR.match(c.text.lower()):
        return None  # "yeah..." may be the start of "yeah, but why...": wait for the end
    if c.request and not (c.question or bid) and c.on_topic is False:
        # "Please turn the oven off" over our answer about leaves: an off-topic command
        # while we talk is for someone in the room (a question or a bid still interrupts)
        return OverlapKind.OTHER_DIRECTED
    if c.question or c.request or bid:
        return OverlapKind.INTERRUPTION
    if f.words and (c.on_topic is False or f.face_toward_camera is False):
        return OverlapKind.OTHER_DIRECTED if f.ended or f.words >= 3 else None
    if f.words >= policy.min_interrupt_words:
        return OverlapKind.INTERRUPTION
    if f.ended:
        return OverlapKind.BACKCHANNEL if f.words else OverlapKind.BACKGROUND
    if f.duration >= policy.max_undecided_s:
        return OverlapKind.INTERRUPTION
    return None


# "Wait, ...", "Hold on, ...": the speaker claims the floor (then says what for), and
# "what about X" asks even when ASR drops the question mark.
_FLOOR_OPENER = re.compile(
    r"^\W*(wait|hold on|hang on|stop|sorry|excuse me|actually|one (second|sec)|just a (second|sec))\b"
    r"\W+\w+|\b(what|how) about\b")


def _takes_floor(text: str) -> bool:
    return bool(_FLOOR_OPENER.search(text.lower()))


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
    return kind is OverlapKind.INTERRUPTION
