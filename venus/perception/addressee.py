"""Who an utterance is for: lexical cues over its words, plus topical relation.

Above `config`/`types`. The lexical cues are deliberately simple, documented rules
(assistant name or wake phrase, second-person requests and questions, imperatives,
a vocative naming someone else, a backchannel lexicon); `TopicRelation` adds the MiniLM
cosine between the utterance and the conversation so far. A frontend policy weighs them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import numpy as np

from memory.models.base import TextEmbedder
from venus.perception.config import PerceptionConfig
from venus.perception.types import AddresseeCues

__all__ = ["BACKCHANNELS", "TopicRelation", "lexical_cues"]

logger = logging.getLogger(__name__)

BACKCHANNELS: frozenset[str] = frozenset({
    "mm hmm", "mhm", "mm", "mmhmm", "uh huh", "uh-huh", "yeah", "yes", "yep", "yup", "right",
    "okay", "ok", "i see", "sure", "got it", "cool", "nice", "wow", "oh", "ah", "really",
    "true", "exactly", "alright", "all right", "hmm", "huh", "oh okay", "oh right",
    "yeah yeah", "right right", "okay okay", "i see i see", "that makes sense",
})
"""Short listener responses that do not claim the floor (normalised: lower case, no
punctuation, hyphens as spaces)."""

_REQUEST_OPENERS = re.compile(
    r"^(?:(?:can|could|would|will|do|did|does|are|is) you|please|i want you to|"
    r"i need you to|let's|tell me|show me|give me|help me)\b")
_QUESTION_OPENERS = re.compile(
    r"^(?:what|what's|whats|when|where|which|who|whom|whose|why|how|is|are|was|were|"
    r"can|could|would|will|should|do|does|did|have|has|isn't|aren't|don't|doesn't)\b")
# A question word after fillers, interjections or a conjunction ("um, why are ...", "oh,
# and what ...", "so how ..."): a question Whisper wrote without its question mark. Only
# the question words: an auxiliary after them is often none ("so do I", "and is that ...").
_LED_QUESTION = re.compile(
    r"^(?:(?:um+|uh+|erm?|oh|ah|hm+|mm+|okay|ok|so|well|and|but|yeah|sorry)\s+)+"
    r"(?:what|what's|whats|when|where|which|who|whose|why|how)\b")
_IMPERATIVES = frozenset({
    "stop", "wait", "hold", "pause", "repeat", "explain", "describe", "summarize",
    "summarise", "tell", "show", "give", "find", "search", "look", "go", "continue",
    "skip", "remind", "set", "read", "play", "help", "start", "list", "define", "compare",
    "translate", "quiz", "check", "open", "say", "speak", "answer", "rewind", "zoom",
})
# Things done with the hands, in the room: asked for over the assistant's answer ("Can you
# close the window?", "grab my keys, would you?") they are for someone there, whatever
# name the words lost ("Hey Sam" heard as "If Sam"). Verbs that also ask the assistant
# for something ("get back to", "open the slide", "turn it up", "hold on", "put it
# another way", "walk me through", "carry on", "bring up") are not here.
_ROOM_VERBS = ("pass", "close", "shut", "grab", "fetch", "hand", "feed", "lock", "unlock",
               "wash", "tidy", "buy")
_ROOM_REQUEST = re.compile(
    r"(?:^|[,.!?;]\s*|\b(?:can|could|would|will) you\s+(?:please\s+)?|\bplease\s+)"
    rf"(?:{'|'.join(_ROOM_VERBS)})\b\s+\w")
# Capitalised sentence openers that are not names ("Okay, ...", "Well, ...").
_NOT_NAMES = frozenset({
    "okay", "ok", "yeah", "yes", "no", "so", "well", "wait", "hey", "oh", "um", "uh", "now",
    "right", "sorry", "please", "actually", "alright", "hmm", "thanks", "look", "listen",
    "and", "but", "also", "then", "see", "hi", "hello", "sure", "fine", "great", "good",
    "anyway", "honestly", "basically", "first", "second", "next", "finally", "i",
    "stop", "hold", "hang", "excuse", "pardon", "what", "why", "how",
    # pronouns and determiners ("Sorry, I'm", "Hold on. We", "Right, I'll": a read cut
    # after its first word)
    "i'm", "i'll", "i've", "i'd", "we", "we're", "we'll", "you", "you're", "they", "he",
    "she", "it", "it's", "there", "that", "this", "these", "those", "the", "my", "our",
    "a", "an", "let's", "where", "when", "who", "which", "do", "does", "did", "can", "is",
})
# A name called out right after an opener or an interjection, set off by punctuation or
# ending the words (the probe's read cut after it): "Wait, Sarah, ...", "Hold on, Tom.
# Where ...", "Oh, Mike, ...", "Stop, Lisa! ...", "Stop David". A name has no apostrophe
# ("Sorry, I'm" is not one).
_AFTER_OPENER = re.compile(
    r"\s*(?:(?i:wait|hold on|hang on|sorry|actually|stop|excuse me|oh|ah|um|uh|well|okay|ok|"
    r"so|hey|now|look|listen|no|yes|yeah)[\s,.!]+)+([A-Z][a-z]+)\s*(?:[,.!]|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def normalise(text: str) -> str:
    """Lower case, hyphens as spaces, letters/digits/apostrophes only, single spaces."""
    text = text.lower().replace("-", " ")
    return " ".join(re.sub(r"[^a-z0-9' ]+", " ", text).split())


def _mentions(norm: str, phrase: str) -> bool:
    p = normalise(phrase)
    return bool(p) and re.search(rf"\b{re.escape(p)}\b", norm) is not None


def _vocative(text: str, config: PerceptionConfig) -> str | None:
    """A person addressed by name: "John, ...", "Hey John ...", "..., John." or a listed name."""
    assistant = normalise(config.assistant_name)
    candidates: list[str] = []
    head = re.match(r"\s*(?i:hey|hi|oi|so|okay|ok)?[\s,]*([A-Z][a-z'\-]+)\s*,", text)
    if head:
        candidates.append(head.group(1))
    opened = _AFTER_OPENER.match(text)
    if opened:  # "Wait, Sarah, can you ...": the opener is for the room, the name says whom
        candidates.append(opened.group(1))
    hey = re.match(r"\s*(?i:hey|hi|oi)\s+([A-Z][a-z'\-]+)\b", text)
    if hey:
        candidates.append(hey.group(1))
    tail = re.search(r",\s*([A-Z][a-z'\-]+)\s*[.?!]*\s*$", text)
    if tail:
        candidates.append(tail.group(1))
    for name in candidates:
        if name.lower() not in _NOT_NAMES and normalise(name) != assistant:
            return name
    norm = normalise(text)
    for name in config.other_names:
        if _mentions(norm, name):
            return name
    return None


def _is_request(norm: str) -> bool:
    first = norm.split(" ", 1)[0] if norm else ""
    return bool(_REQUEST_OPENERS.search(norm)) or first in _IMPERATIVES


def _strip_address(norm: str, config: PerceptionConfig) -> str:
    """Drop a leading wake phrase / assistant name so "Venus, what is..." reads as a question."""
    for phrase in sorted((*config.wake_phrases, config.assistant_name), key=len, reverse=True):
        p = normalise(phrase)
        if p and norm.startswith(p):
            return norm[len(p):].strip()
    return norm


def lexical_cues(text: str, duration_s: float, config: PerceptionConfig) -> AddresseeCues:
    """Cues from the words alone (``duration_s``: how long the utterance lasted)."""
    norm = normalise(text)
    if not norm:
        return AddresseeCues(text=text)
    by_name = any(_mentions(norm, p) for p in (config.assistant_name, *config.wake_phrases))
    other = _vocative(text, config)
    body = _strip_address(norm, config)
    if other:  # "John, can you ..." asks John: read the request after the vocative
        body = normalise(text.split(",", 1)[1]) if text.lstrip().startswith(other) and "," in text \
            else body
    n_words = len(_WORD.findall(text))
    backchannel = (norm in BACKCHANNELS and n_words <= config.backchannel_max_words
                   and duration_s <= config.backchannel_max_s)
    # a thing to be done in the room is a request, not a question, however it is put
    room = _ROOM_REQUEST.search(text.lower()) is not None
    question = (text.rstrip().endswith("?") or bool(_QUESTION_OPENERS.search(body))
                or bool(_LED_QUESTION.search(body))) and not room
    return AddresseeCues(text=text, addressed_by_name=by_name,
                         request=(_is_request(body) or question or room) and not backchannel,
                         question=question and not backchannel, other_name=other,
                         backchannel=backchannel, room=room)


class TopicRelation:
    """Cosine similarity between an utterance and the conversation context (MiniLM).

    The context is what the conversation is about (the assistant's recent words, the
    question being answered); set it with `set_context` (cheap: it is embedded on first
    use). `similarity` may run on perception's ASR worker thread while the owner sets a
    new context: it takes the ``context`` snapshot the job was submitted with, and the
    caches are replaced whole, never mutated (the embedder has its own lock).
    """

    def __init__(self, embedder: TextEmbedder | None = None) -> None:
        self._embedder = embedder
        self._texts: tuple[str, ...] = ()
        self._context: tuple[tuple[str, ...], np.ndarray] | None = None
        self._last: tuple[tuple[tuple[str, ...], str], float] | None = None

    @property
    def embedder(self) -> TextEmbedder:
        if self._embedder is None:
            from memory.models import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder

    def set_context(self, texts: Sequence[str] | str | None) -> None:
        if isinstance(texts, str):
            texts = [texts]
        self._texts = tuple(t for t in (texts or []) if t and t.strip())

    @property
    def context(self) -> tuple[str, ...]:
        """The context texts now (a snapshot to pass to `similarity` later)."""
        return self._texts

    @property
    def has_context(self) -> bool:
        return bool(self._texts)

    def similarity(self, text: str, context: tuple[str, ...] | None = None) -> float | None:
        """Cosine of ``text`` with ``context`` (default: the context now)."""
        texts = self._texts if context is None else context
        if not texts or not text.strip():
            return None
        last = self._last
        if last is not None and last[0] == (texts, text):
            return last[1]
        cached = self._context
        if cached is None or cached[0] != texts:
            mean = self.embedder.embed(list(texts)).mean(axis=0)
            cached = (texts, mean / max(float(np.linalg.norm(mean)), 1e-9))
            self._context = cached
        sim = float(np.dot(self.embedder.embed([text])[0], cached[1]))
        self._last = ((texts, text), sim)
        return sim
