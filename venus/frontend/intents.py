"""What the user asks for: a direct question, a request to delegate, or nothing for us.

Policy data and pure functions under `venus.frontend.embedded`. `detect_intent` maps a
finished user utterance to an `Intent` with documented keyword rules:

* **delegate** (heavy or long work, or work that must wait): summaries of a range
  ("summarize the last ten minutes", "recap"), quizzes, searches over the whole session
  ("every time", "all the times", "search the whole video"), timers and reminders
  ("remind me in 5 minutes to ...", "set a timer for 30 seconds"), arithmetic
  ("what is 12 times 7", "calculate ..."), standing requests ("tell me when ...", "let me
  know if/when ...", "alert me when ...", "remind me when ...", "tell me every time ...":
  the ``watch`` capability; "tell me when he *mentioned* ..." asks about the past and is
  answered instead). Each maps to a built-in capability with its arguments and a short
  acknowledgement to say meanwhile;
* **cancel**: "never mind", "cancel that", "forget it", "stop watching" (cancels the
  newest open item);
* **repeat**: "say that again", "what did you say" (revise: repeat what was cut);
* **answer**: any other question or request: answered at once, extractively, from the
  video memory;
* **none**: statements that ask nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Intent", "arithmetic_expression", "detect_intent", "parse_duration",
           "watch_request"]

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "ninety": 90, "a": 1, "an": 1, "a couple of": 2, "a few": 3, "half an": 0.5,
}
_UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600}
_DURATION = re.compile(
    r"\b(\d+(?:\.\d+)?|" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True))
    + r")\s*(second|sec|minute|min|hour)s?\b")
_OPS = [(r"\bmultiplied by\b|\btimes\b|\bx\b|×", "*"), (r"\bdivided by\b|\bover\b|÷", "/"),
        (r"\bplus\b|\badded to\b", "+"), (r"\bminus\b|\bless\b", "-"),
        (r"\bsquared\b", "**2"), (r"\bto the power of\b", "**")]
_CANCEL = re.compile(r"\b(never ?mind|cancel (that|it|the)|forget (it|that|about it)|"
                     r"don't bother|stop (the|that) (timer|search|summary|quiz|watch)|"
                     r"stop watching|cancel (my|the) watch|don't (tell|remind) me)\b")
_WATCH = re.compile(
    r"^(?:\w+,\s*)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?"
    r"(?:tell|let|alert|remind|notify|ping|warn|give)\s+(?:me|us)(?:\s+(?:know|a shout))?"
    r"\s+(every time|each time|whenever|when|if|once|as soon as)\s+(.+)$", re.IGNORECASE)
_PASSIVE = re.compile(r"\b(is|are|gets?|get|be|being)\s+(\w+ed|shown|said|brought up)\b",
                      re.IGNORECASE)
_PAST = re.compile(r"\b(was|were|did|had|has been|already|earlier|before now|so far|"
                   r"started|began|mentioned|said|showed|talked|came|appeared|got|explained|"
                   r"introduced|discussed|covered)\b", re.IGNORECASE)
_EVENT = re.compile(r"\b(mention\w*|comes? up|coming up|appears?|shows? up|starts?|begins?|"
                    r"gets? to|talks?|speaks?|says?|discuss\w*|brings? up|brought up|"
                    r"(is|are) (shown|said|mentioned|brought up)|pops? up|turns? up|happens?)\b",
                    re.IGNORECASE)
_EVERY = re.compile(r"\b(every time|each time|whenever|every single time)\b", re.IGNORECASE)
_REPEAT = re.compile(r"\b(say (that|it) again|repeat (that|it)|what did you (just )?say|"
                     r"come again|pardon)\b")
_QUIZ = re.compile(r"\bquiz\b|\btest me\b|\bquestions? (for|to test) me\b")
_SUMMARY = re.compile(r"\b(summari[sz]e|summary|recap|sum up|sum it up|overview of)\b")
_WHOLE = re.compile(r"\b(every time|all the times|each time|whenever|how many times|"
                    r"(search|look through|go through) the (whole|entire)|"
                    r"(in|across|over) the (whole|entire) (video|session|lecture))\b")
_TIMER = re.compile(r"\b(remind me|set a timer|timer for|alarm|in \S+ (seconds?|minutes?) "
                    r"(tell|remind))\b")
_CALC = re.compile(r"\b(calculate|compute|what(?:'s| is)\s+[\d.]+\s*(?:[-+*/x×÷]|times|plus|"
                   r"minus|divided|multiplied|squared|to the power))")
_QUESTION = re.compile(
    r"^(?:\w+,\s*)?(what|what's|whats|when|where|which|who|whose|why|how|is|are|was|were|can|"
    r"could|would|will|should|do|does|did|have|has|tell|show|explain|describe|find|give|"
    r"remind|help|say)\b")


@dataclass(frozen=True)
class Intent:
    """``kind``: "delegate", "answer", "cancel", "repeat" or "none"."""

    kind: str
    text: str
    capability: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    ack: str = ""


def detect_intent(text: str, now: float = 0.0) -> Intent:
    """The intent of a finished utterance ``text`` heard at session time ``now``."""
    t = " ".join(text.lower().split()).strip()
    if not t:
        return Intent("none", text)
    if _CANCEL.search(t):
        return Intent("cancel", text, ack="Okay, I've cancelled that.")
    if _REPEAT.search(t):
        return Intent("repeat", text)
    delegated = _delegation(t, text, now)
    if delegated is not None:
        return delegated
    if "?" in text or _QUESTION.match(t):
        return Intent("answer", text)
    return Intent("none", text)


def watch_request(text: str) -> tuple[str, bool] | None:
    """"Let me know when the slide about X comes up" -> ("the slide about X comes up",
    False); "tell me every time she mentions Y" -> ("she mentions Y", True); None for
    anything else, for a question about the past ("tell me when he mentioned Y") and for
    "tell me if" with no event in it ("tell me if there is a dog": a question about now)."""
    m = _WATCH.match(" ".join(text.split()).strip().rstrip(".!?"))  # keeps the case of names
    if not m:
        return None
    condition = re.sub(r"[,\s]+(please|thanks|thank you)$", "", m.group(2),
                       flags=re.IGNORECASE).strip(" ,")
    if not condition or _PAST.search(_PASSIVE.sub(" ", condition)):
        return None
    if m.group(1).lower() == "if" and not _EVENT.search(condition):
        return None  # "tell me if there is a dog in the video": a question about now
    every = bool(_EVERY.match(m.group(1)) or _EVERY.search(condition))
    condition = _EVERY.sub(" ", condition).strip()
    return " ".join(condition.split()), every


def _watch(t: str, text: str) -> Intent | None:
    parsed = watch_request(text)
    if parsed is None:
        return None
    condition, every = parsed
    ack = (f"Sure, I'll tell you every time {condition}." if every
           else f"Sure, I'll let you know when {condition}.")
    return Intent("delegate", text, "watch", {"condition": condition, "every_time": every}, ack)


def _delegation(t: str, text: str, now: float) -> Intent | None:
    watched = _watch(t, text)
    if watched is not None:
        return watched
    if _TIMER.search(t):
        seconds = parse_duration(t) or 60.0
        message = _reminder_message(text)
        return Intent("delegate", text, "set_timer", {"seconds": seconds, "message": message},
                      f"Sure, I'll remind you in {_say_seconds(seconds)}.")
    expression = arithmetic_expression(t) if _CALC.search(t) else None
    if expression:
        return Intent("delegate", text, "calculate", {"expression": expression},
                      "Let me work that out.")
    start = _range_start(t, now)
    if _QUIZ.search(t):
        return Intent("delegate", text, "make_quiz", {"start": start, "end": now, "questions": 3},
                      "Sure, I'll put a short quiz together.")
    if _SUMMARY.search(t):
        return Intent("delegate", text, "summarize_range",
                      {"start": start, "end": now, "sentences": 3},
                      "Sure, I'll put a summary together while we go on.")
    if _WHOLE.search(t):
        return Intent("delegate", text, "search_memory", {"query": text.strip(), "k": 5},
                      "Let me search the whole session for that.")
    return None


def parse_duration(t: str) -> float | None:
    """Seconds in "in 5 minutes", "for thirty seconds", "in half an hour"; None if absent."""
    m = _DURATION.search(t.lower())
    if not m:
        return None
    amount = m.group(1)
    value = float(amount) if amount[0].isdigit() else float(_NUMBER_WORDS[amount])
    return value * _UNITS[m.group(2)]


def _range_start(t: str, now: float) -> float:
    """"the last N minutes" -> now - N*60; otherwise the whole session so far (0)."""
    m = re.search(r"\b(last|past|previous)\s+(.+?)\b(seconds?|minutes?|hours?)\b", t)
    if m:
        seconds = parse_duration(f"{m.group(2)} {m.group(3)}")
        if seconds:
            return max(0.0, now - seconds)
    if re.search(r"\b(last|past) (minute|hour)\b", t):
        return max(0.0, now - (60.0 if "minute" in t else 3600.0))
    return 0.0


def arithmetic_expression(t: str) -> str | None:
    """"what is 12 times 7" -> "12 * 7"; None when no arithmetic is found."""
    body = re.sub(r"^.*?\b(calculate|compute|what's|what is)\b", "", t.lower()).strip(" ?.!")
    for pattern, op in _OPS:
        body = re.sub(pattern, f" {op} ", body)
    body = re.sub(r"[^0-9.+\-*/() ]", " ", body)
    body = " ".join(body.split())
    if not re.search(r"\d", body) or not re.search(r"[-+*/]", body):
        return None
    return body


def _reminder_message(text: str) -> str:
    m = re.search(r"\bto (.+)$", text.strip().rstrip(".?!"), re.IGNORECASE)
    return (m.group(1).strip() if m else "Time's up!")[:200] or "Time's up!"


def _say_seconds(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        n = int(seconds // 60)
        return f"{n} minute{'s' if n != 1 else ''}"
    return f"{seconds:g} seconds"
