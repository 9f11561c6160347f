"""Standing conditions over a growing memory: "tell me when ..." matched causally.

Beside the answerers on the retrieval side (it reads `memory.evidence.Evidence` and the
terms of `memory.lexical`; never imports venus). A `WatchCondition` is what the user asked
to be told about, cut down to its content terms ("tell me when he starts on the exam
topics" -> ``exam``, ``topic``); a `Watcher` follows one condition along the memory as
it is committed: `Watcher.step` takes the sentences said and lines shown that end by a
horizon (the memory committed so far, never later) and returns the `WatchMatch`es that
fire. A unit fires when the share of the condition's terms it holds (`coverage`) is at
least `WatchOptions.min_score`. Terms are whole stemmed words, so "chess" never matches
"chest". By default a watcher fires once; ``every_time`` keeps it, once per new stretch.

`watch_memory` runs watchers over a finished (or growing) memory in one-second steps, as
a viewer playing the video would get the alerts: each at the first chunk boundary at
which its evidence was complete.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memory.evidence import SEEN, SHOWN, format_time
from memory.lexical import tokenize

__all__ = ["DEFAULT_MIN_SCORE", "WatchCondition", "WatchMatch", "WatchOptions", "Watcher",
           "committed", "coverage", "watch_memory"]

DEFAULT_MIN_SCORE = 0.75
"""Share of a condition's terms a stretch must hold to fire. Chosen on the tuning split of
``venus bench proactive`` only: 0.6 to 1.0 all gave recall 1.00 at precision 1.00 there
(0.5 and below: recall 0.90, precision 0.85), and 0.75 is the middle of that plateau
(docs/watch.md); the held-out split only reports."""

# Words that frame a request rather than name what to watch for ("when he *starts on*
# the *topic* of ...", "when the *slide about* ... *comes up*"), as `tokenize` stems them.
_FRAMING = frozenset(tokenize(
    "start starts started starting begin begins beginning get gets getting go goes "
    "going come comes coming up mention mentions mentioned mentioning talk talks talking "
    "speak speaks speaking discuss discusses discussing explain explains explaining cover "
    "covers covering show shows shown showing appear appears appearing slide slides "
    "screen topic topics subject part section bit thing things something anyone someone "
    "anybody somebody lecturer speaker teacher professor presenter video lecture "
    "let know alert remind notify please tell me us him them us he she they it "
    "whenever every time each again any some just on one"))
_SHOWN_WORDS = re.compile(r"\b(slides?|screen|shown|written|on the board)\b", re.IGNORECASE)
_SEEN_WORDS = re.compile(
    r"\b(see|seen|sees|walks? (in|into|on)|enters?|in (the )?(picture|frame|view)|on camera|"
    r"(comes?|appears?) (in|into|on) (view|camera|the picture))\b", re.IGNORECASE)


class EvidenceSource(Protocol):
    """What a watcher reads: a memory's sentences and lines (``memory.VideoMemory``)."""

    @property
    def duration(self) -> float: ...

    def evidence(self, start: float, end: float) -> Sequence: ...


def committed(source: EvidenceSource, start: float, end: float) -> Sequence:
    """``source.evidence(start, end)`` of what is committed only: a store that can read
    without committing its buffered chunks first (``flush=False``, `VideoMemory`) is read
    so, and its speech batches are left whole."""
    if "flush" in inspect.signature(source.evidence).parameters:
        return source.evidence(start, end, flush=False)
    return source.evidence(start, end)  # a source without the keyword holds no buffer


@dataclass(frozen=True)
class WatchOptions:
    """``min_score``: the share of the condition's terms a stretch must hold;
    ``lookback_s``: how far behind the horizon late-committed units are still read;
    ``refractory_s``: an every-time watch fires at most once in this many seconds."""

    min_score: float = DEFAULT_MIN_SCORE
    lookback_s: float = 90.0
    refractory_s: float = 20.0


@dataclass(frozen=True)
class WatchCondition:
    """What to watch for. ``terms``: its content terms (stemmed); ``modality``: "shown"
    when it names a slide or the screen, "seen" when it names something seen on camera,
    else "any" (said or shown)."""

    text: str
    terms: tuple[str, ...]
    modality: str = "any"

    @classmethod
    def parse(cls, text: str) -> WatchCondition:
        terms = tuple(dict.fromkeys(t for t in tokenize(text) if t not in _FRAMING))
        if _SEEN_WORDS.search(text) and not _SHOWN_WORDS.search(text):
            modality = SEEN
        elif _SHOWN_WORDS.search(text):
            modality = SHOWN
        else:
            modality = "any"
        return cls(text.strip(), terms, modality)

    @property
    def empty(self) -> bool:
        return not self.terms


@dataclass(frozen=True)
class WatchMatch:
    """One alert: the condition, the unit that matched (``kind``, ``text``, ``start``,
    ``end``), its ``score`` and ``at``, the media time it was known (the horizon)."""

    condition: str
    kind: str
    text: str
    start: float
    end: float
    score: float
    at: float

    def sentence(self) -> str:
        """How the alert is said, short and leading with its video time:
        'At 12:40: "...the exam is on Friday."' or 'At 12:40 on screen: "Photosynthesis"'."""
        where = " on screen" if self.kind == SHOWN else ""
        return f"At {format_time(self.start)}{where}: \u201c{self.text}\u201d"


PREFIX_MIN, PREFIX_SLACK = 7, 2
"""A long term also matches a word that extends it by a letter or two, or that it extends
("Himalayas" said, "Himalayan" heard: a tuning-split miss). Short terms never do, so
"chess" stays apart from "chest" and "heart" from "hearth"."""


def _holds(held: set[str], term: str) -> bool:
    if term in held:
        return True
    if len(term) < PREFIX_MIN:
        return False
    return any(len(w) >= PREFIX_MIN and abs(len(w) - len(term)) <= PREFIX_SLACK
               and (w.startswith(term) or term.startswith(w)) for w in held)


def coverage(condition: WatchCondition, text: str) -> float:
    """The share of the condition's terms ``text`` holds (whole stemmed words, see
    `PREFIX_MIN` for the one allowance)."""
    if condition.empty:
        return 0.0
    held = set(tokenize(text))
    return sum(_holds(held, t) for t in condition.terms) / len(condition.terms)


@dataclass
class Watcher:
    """One condition followed along a memory as it is committed (state in one object).

    ``since``: media time the watch was set; units ending by then are never read (a watch
    set halfway through is about what comes next).
    """

    condition: WatchCondition
    every_time: bool = False
    since: float = 0.0
    options: WatchOptions = field(default_factory=WatchOptions)
    horizon: float = 0.0
    fired: list[WatchMatch] = field(default_factory=list)
    _seen: set = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        self.horizon = max(self.horizon, self.since)

    @property
    def done(self) -> bool:
        return bool(self.fired) and not self.every_time

    def step(self, source: EvidenceSource, horizon: float) -> list[WatchMatch]:
        """Read what was committed up to ``horizon``; the matches that fire now."""
        if self.done or horizon <= self.since:
            return []
        # The window behind the horizon is read again: speech is committed in batches,
        # so a sentence may arrive after the chunks it was said in.
        lo = max(self.since, self.horizon - self.options.lookback_s)
        return self.feed(committed(source, lo, horizon), horizon)

    def feed(self, units: Iterable, at: float) -> list[WatchMatch]:
        """Match the units a memory holds at media time ``at`` (each unit is read once;
        a causal memory cuts the open stretch at ``at``, so a sentence still being said
        is read as far as it was heard)."""
        out: list[WatchMatch] = []
        for unit in _stretches(u for u in units if u.end <= at + 1e-6):
            key = (unit.kind, round(unit.start, 2), unit.text)
            if key in self._seen or unit.start < self.since - 1.0 or self.done:
                continue
            self._seen.add(key)
            match = self._match(unit, at)
            if match is not None:
                self.fired.append(match)
                out.append(match)
        self.horizon = max(self.horizon, at)
        self._forget(at - 2 * self.options.lookback_s)
        return out

    def _forget(self, before: float) -> None:
        if len(self._seen) > 512:
            self._seen = {k for k in self._seen if k[1] >= before}

    def _match(self, unit, at: float) -> WatchMatch | None:
        c = self.condition
        if c.modality == SHOWN and unit.kind != SHOWN or c.modality == SEEN and unit.kind != SEEN:
            return None
        score = coverage(c, unit.text)
        if score < self.options.min_score - 1e-9:
            return None
        quote = _quote(c, unit.text)
        last = self.fired[-1] if self.fired else None
        # every time: a new stretch, not the same slide caught again on a later key frame
        if last is not None and (unit.start - last.start < self.options.refractory_s
                                 or quote == last.text):
            return None
        return WatchMatch(c.text, unit.kind, quote, unit.start, unit.end, score,
                          max(at, unit.end))


@dataclass(frozen=True)
class _Stretch:
    kind: str
    text: str
    start: float
    end: float


def _stretches(units: Iterable) -> list[_Stretch]:
    """Sentences said one by one; the lines of one key frame together (a slide's title
    and its bullets are read as one stretch); boilerplate (a footer) never."""
    out: list[_Stretch] = []
    slides: dict[float, list] = {}
    for u in units:
        if getattr(u, "boilerplate", False):
            continue
        if u.kind == SHOWN:
            slides.setdefault(round(u.start, 2), []).append(u)
        else:
            out.append(_Stretch(u.kind, u.text, u.start, u.end))
    for lines in slides.values():
        out.append(_Stretch(SHOWN, "\n".join(u.text for u in lines), lines[0].start,
                            max(u.end for u in lines)))
    out.sort(key=lambda s: (s.end, s.start))
    return out


def _quote(condition: WatchCondition, text: str, words: int = 10) -> str:
    """The evidence to quote, short enough to say at once: of a slide, the line holding
    the most of the condition's terms (the first such: usually the title); of a long
    sentence, the ``words`` around the terms it holds, with an ellipsis where cut."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    line = max(lines, key=lambda x: coverage(condition, x)) if lines else text.strip()
    tokens = line.split()
    if len(tokens) <= words:
        return line
    hits = [i for i, w in enumerate(tokens) if set(tokenize(w)) & set(condition.terms)]
    last = hits[-1] if hits else len(tokens) - 1
    lo = max(0, min(hits[0] if hits else 0, last - words + 1))
    hi = min(len(tokens), lo + words)
    return (("\u2026" if lo else "") + " ".join(tokens[lo:hi])
            + ("\u2026" if hi < len(tokens) else ""))


def watch_memory(source: EvidenceSource, watchers: Sequence[Watcher], *,
                 start: float = 0.0, end: float | None = None,
                 step_s: float = 1.0) -> list[WatchMatch]:
    """Every alert of ``watchers`` over ``source`` from ``start`` to ``end`` (default: what
    it holds), stepping the horizon one chunk at a time as a viewer playing the video
    would (each step reads what the memory held then), in the order they fire."""
    end = float(source.duration if end is None else end)
    lookback = max((w.options.lookback_s for w in watchers), default=0.0)
    out: list[WatchMatch] = []
    t = start
    while t < end - 1e-9 and not all(w.done for w in watchers):
        t = min(end, t + step_s)
        live = [w for w in watchers if not w.done and t > w.since]
        if not live:
            continue
        lo = max(0.0, min(max(w.since, w.horizon - lookback) for w in live))
        units = committed(source, lo, t)
        for w in live:
            out += w.feed(units, t)
    return out
