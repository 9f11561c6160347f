"""Time phrases in questions -> time filters on the media timeline.

"What was on the slide at the start?", "what was on the first slide?", "what did she say
five minutes ago?", "in the last minute", "after the slide about entropy", "at 12:30":
each becomes a `TimeFilter` (a window in seconds of media time, or a topic anchor the
store resolves by searching). Pure text processing: no models, no store; the store
applies the result together with the causal cutoff, which always wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TimeFilter", "parse_time"]

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "a few": 3, "a couple of": 2, "couple of": 2, "few": 3, "half an": 0.5, "half a": 0.5,
}
_NUM = r"(\d+(?:\.\d+)?|" + "|".join(sorted(map(re.escape, _NUMBERS), key=len, reverse=True)) + ")"
_UNIT = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?)"
_CLOCK = r"(\d{1,2}:\d{2}(?::\d{2})?)"
# "the first slide", "the last slide": what was on screen first / most recently
_SHOWN = r"(?:slides?|screens?|pages?|pictures?|images?|frames?)\b"


@dataclass(frozen=True)
class TimeFilter:
    """A window ``[start, end]`` in media seconds (None = open) and/or a topic anchor.

    ``after_topic``/``before_topic``: the store finds the moment about that topic and
    turns it into ``start``/``end``. ``point`` is the instant an "at M:SS" phrase names
    (possibly after the asking time: a question about what has not happened yet). ``phrase`` is the matched text, ``query`` the
    question without it (what is left to search for).
    """

    start: float | None = None
    end: float | None = None
    after_topic: str | None = None
    before_topic: str | None = None
    phrase: str = ""
    query: str = ""
    order: str | None = None  # "earliest" / "latest": the phrase asks for an end of the window
    point: float | None = None  # "at 1:30": the moment named (not clipped to the asking time)

    @property
    def is_empty(self) -> bool:
        return (self.start is None and self.end is None and self.after_topic is None
                and self.before_topic is None)


def _num(text: str) -> float:
    text = text.strip().lower()
    return float(text) if re.fullmatch(r"\d+(?:\.\d+)?", text) else float(_NUMBERS[text])


def _seconds(amount: str, unit: str) -> float:
    unit = unit.lower()
    scale = 3600.0 if unit.startswith(("hour", "hr")) else 60.0 if unit.startswith("m") else 1.0
    return _num(amount) * scale


def clock_seconds(text: str) -> float:
    """'12:30' -> 750.0; '1:02:03' -> 3723.0 (media time, not wall-clock time)."""
    parts = [int(p) for p in text.split(":")]
    total = 0
    for p in parts:
        total = total * 60 + p
    return float(total)


def _rules(now: float, recent: float):
    start_span = max(60.0, 0.1 * now)
    return [
        (rf"\b(?:between|from)\s+{_CLOCK}\s+(?:and|to|-)\s+{_CLOCK}",
         lambda m: (clock_seconds(m[1]), clock_seconds(m[2]))),
        (rf"\b(?:after|since)\s+{_CLOCK}", lambda m: (clock_seconds(m[1]), None)),
        (rf"\bbefore\s+{_CLOCK}", lambda m: (None, clock_seconds(m[1]))),
        (rf"\b(?:at|around|near)\s+(?:minute\s+)?{_CLOCK}",
         lambda m: (clock_seconds(m[1]) - 30.0, clock_seconds(m[1]) + 30.0, None,
                    clock_seconds(m[1]))),
        (rf"\bin\s+the\s+(?:last|past|previous)\s+(?:{_NUM}\s+)?{_UNIT}",
         lambda m: (now - _seconds(m[1] or "1", m[2]), now)),
        (rf"\bin\s+the\s+first\s+(?:{_NUM}\s+)?{_UNIT}",
         lambda m: (0.0, _seconds(m[1] or "1", m[2]))),
        (rf"\b{_NUM}\s+{_UNIT}\s+ago\b", lambda m: _ago(now, _seconds(m[1], m[2]))),
        (rf"\bat\s+minute\s+{_NUM}\b",
         lambda m: (_num(m[1]) * 60.0 - 30.0, _num(m[1]) * 60.0 + 30.0, None,
                    _num(m[1]) * 60.0)),
        (rf"\b(?:the\s+)?(?:very\s+)?first\s+{_SHOWN}", lambda m: (0.0, start_span, "earliest")),
        (rf"\b(?:the\s+)?(?:very\s+)?(?:last|latest|final|current)\s+{_SHOWN}",
         lambda m: (now - max(recent, 0.1 * now), now, "latest")),
        ((r"\b(?:at|near|in)\s+the\s+(?:very\s+)?(?:start|beginning|outset)\b"
          r"|\b(?:at\s+)?first\b(?=\s*[,?.!]|\s*$)"),
         lambda m: (0.0, start_span, "earliest")),
        (r"\b(?:just\s+(?:now|said|say|says|told|tell|mentioned|mention|showed|shown|show|"
         r"happened|talked|explained|heard|hear|saw|see|seen|read)|a\s+moment\s+ago|recently|"
         r"right\s+now)\b",
         lambda m: (now - recent, now, "latest")),
        (r"\bin\s+the\s+middle\b", lambda m: (0.35 * now, 0.65 * now)),
        (r"\b(?:at|near|towards?)\s+the\s+end\b",
         lambda m: (now - max(recent, 0.1 * now), now, "latest")),
    ]


def _ago(now: float, seconds: float) -> tuple[float, float]:
    slack = max(30.0, 0.25 * seconds)
    return now - seconds - slack, now - seconds + slack


_TOPIC = re.compile(
    r"\b(after|before)\s+(?:the\s+)?(?:slide|part|section|bit|segment|discussion|talk)\s+"
    r"(?:about|on|with|titled|called)\s+(.+?)(?=[,?.!;]|\s+(?:what|who|which|how|did|was)\b|$)",
    re.IGNORECASE,
)


def parse_time(question: str, now: float | None = None, recent: float = 60.0) -> TimeFilter:
    """Find the first time phrase in ``question``; times are media seconds.

    ``now`` is the time the question is asked (needed for relative phrases; without it
    they are ignored). Windows are clipped to ``[0, now]``.
    """
    topic = _TOPIC.search(question)
    if topic:
        which, subject = topic[1].lower(), topic[2].strip()
        rest = _strip(question, topic)
        return TimeFilter(after_topic=subject if which == "after" else None,
                          before_topic=subject if which == "before" else None,
                          phrase=topic[0], query=rest)
    ref = now if now is not None else float("inf")
    for pattern, window in _rules(ref if now is not None else 0.0, recent):
        match = re.search(pattern, question, re.IGNORECASE)
        if not match:
            continue
        relative = pattern.startswith((r"\bin\s+the\s+(?:last", rf"\b{_NUM}", r"\b(?:just",
                                       r"\bin\s+the\s+middle", r"\b(?:at|near|towards?)\s+the\s+end",
                                       r"\b(?:the\s+)?(?:very\s+)?(?:last"))
        if relative and now is None:
            continue
        start, end, *rest = window(match)
        order, point = (rest + [None, None])[:2]
        start = None if start is None else max(0.0, start)
        end = None if end is None else max(0.0, min(ref, end))
        return TimeFilter(start=start, end=end, phrase=match[0], query=_strip(question, match),
                          order=order, point=point)
    return TimeFilter(query=question)


def _strip(question: str, match: re.Match) -> str:
    text = question[:match.start()] + question[match.end():]
    return re.sub(r"\s+", " ", text).strip(" ,")
