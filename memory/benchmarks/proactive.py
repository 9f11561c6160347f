"""The proactive benchmark: "tell me when ..." requests over a generated lecture.

The lecture is the answer benchmark's (`memory.benchmarks.qa`: the same splits, topic
sets, seeds and voices; the tuning split chooses, held-out only reports). For each slide
a person asks, in their own words, to be told when the slide about its topic comes up
(or when the lecture gets to the topic), when the fact said about it is mentioned, and
when the line only shown on it comes up; requests about topics of another split never
come (their subjects are checked to be absent from the script). Requests about the second
half of the lecture are set halfway through; the rest before the video starts.

The event of a request is the first time, at or after the request was set, that the
*script* (not the memory) holds every term of its ``subject``: a sentence said (at the
time its last subject word was spoken, interpolated over the sentence) or a slide shown
(at the slide's start). `score` matches alerts to events: an alert is right when its
evidence overlaps a unit of the script that holds the subject, at or after the request;
its delay runs from the event to the alert's start in the output.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.benchmarks.qa import SPLITS, Split
from memory.lexical import STOP_WORDS, tokenize

__all__ = ["Alert", "ProactiveScore", "WatchRequest", "requests", "score"]

_NEVER_FROM = {"tuning": "dev2", "held-out": "dev"}
_NUMERIC = re.compile(r"^[\d.,\s]+|\b(one|two|three|four|five|six|seven|eight|nine|ten|"
                      r"twenty|thirty|hundred|thousand|million|billion|trillion|percent)\b")

SLIDE = ("Let me know when the slide about {s} comes up.",
         "Tell me when the slide on {s} is shown.",
         "Alert me when {s} shows up on the screen.")
TOPIC = ("Tell me when he starts talking about {s}.",
         "Let me know when we get to {s}.",
         "Remind me when the lecture gets to {s}.")
MENTION = ("Tell me if anyone mentions {s}.",
           "Let me know if {s} comes up.",
           "Alert me when {s} is mentioned.")
NEVER = ("Tell me when he starts talking about {s}.",
         "Let me know if anyone mentions {s}.",
         "Tell me if the slide about {s} comes up.")


@dataclass(frozen=True)
class WatchRequest:
    """``text``: the request as said; ``subject``: the words whose first appearance is
    the event; ``kind``: slide, topic, said, shown or never; ``set_at``: video time it
    was made; ``event``: video time of the event (None: it never comes)."""

    text: str
    subject: str
    kind: str
    set_at: float
    event: float | None
    every_time: bool = False


@dataclass(frozen=True)
class Alert:
    """One alert as the system gave it: evidence span and when its output began."""

    request: int
    start: float
    end: float
    spoken_at: float
    text: str = ""


@dataclass(frozen=True)
class ProactiveScore:
    recall: float
    precision: float
    delays: tuple[float, ...]
    alerts: int
    events: int
    false_alerts: tuple[tuple[str, str], ...]
    missed: tuple[str, ...]


def _terms(text: str) -> set[str]:
    return set(tokenize(text))


def _units(truth: dict, shown_only: bool = False) -> list[tuple[float, float, float, str, str]]:
    """(start, end, time the subject is complete, kind, text) of every unit of the script."""
    out = []
    for slide in truth["slides"]:
        text = "\n".join([slide.get("title", ""), *slide.get("bullets", [])])
        out.append((float(slide["start"]), float(slide["end"]), float(slide["start"]),
                    "shown", text))
    if not shown_only:
        out += [(float(s["start"]), float(s["end"]), float(s["end"]), "said", s["text"])
                for s in truth["sentences"]]
    return sorted(out)


def _said_at(start: float, end: float, text: str, subject: set[str]) -> float:
    """When the last subject word of a sentence was spoken (by word position)."""
    words = text.split()
    last = 0
    seen: set[str] = set()
    for i, w in enumerate(words):
        terms = _terms(w) & subject
        if terms - seen:
            seen |= terms
            last = i
        if seen >= subject:
            break
    return start + (end - start) * (last + 1) / max(1, len(words))


def event_time(truth: dict, subject: str, after: float, shown_only: bool = False
               ) -> float | None:
    """The first time at or after ``after`` that the script holds all terms of ``subject``."""
    want = _terms(subject)
    if not want:
        return None
    best = None
    for start, end, _, kind, text in _units(truth, shown_only):
        if end <= after or not want <= _terms(text):
            continue
        t = max(after, start if kind == "shown" else _said_at(start, end, text, want))
        best = t if best is None else min(best, t)
    return best


def _nameable(subject: str) -> bool:
    """A thing a person would ask to hear about: no number, no function words ("by
    their food" and "all the others" are answer keys, not subjects)."""
    return not _NUMERIC.search(subject) and not set(subject.lower().split()) & STOP_WORDS


def _inline(title: str) -> str:
    return re.sub(r"^the\s+", "", title, flags=re.IGNORECASE)


def requests(split: Split, truth: dict) -> list[WatchRequest]:
    """Every request of the split's lecture (see the module docstring)."""
    rng = random.Random(split.seed + 28)
    half = float(truth["duration"]) / 2.0
    out: list[WatchRequest] = []
    for n, slide in enumerate(truth["slides"]):
        title = slide["title"]
        qa = split.qa[title]
        set_at = half if float(slide["start"]) > half + 20.0 else 0.0
        kind, templates = ("slide", SLIDE) if n % 2 == 0 else ("topic", TOPIC)
        subjects = [(kind, templates, _inline(title))]
        for kind, subject in (("said", qa.spoken[1][0]), ("shown", qa.slide[2][0])):
            if _nameable(subject):
                subjects.append((kind, MENTION, subject))
        for kind, templates, subject in subjects:
            event = event_time(truth, subject, set_at, shown_only=kind == "slide")
            if event is None:
                continue  # the script never says it after the request: not a fair event
            out.append(WatchRequest(rng.choice(templates).format(s=subject), subject, kind,
                                    set_at, event))
    other = SPLITS[_NEVER_FROM.get(split.name, "dev3")]
    for title, *_ in other.topics:
        subject = _inline(title)
        if event_time(truth, subject, 0.0) is None:
            out.append(WatchRequest(rng.choice(NEVER).format(s=subject), subject, "never",
                                    0.0, None))
    return out


def _right(truth: dict, request: WatchRequest, alert: Alert) -> bool:
    want = _terms(request.subject)
    for start, end, _, kind, text in _units(truth, request.kind == "slide"):
        if end <= request.set_at or not want <= _terms(text):
            continue
        if alert.start < end + 2.0 and alert.end > start - 2.0:
            return True
    return False


def score(truth: dict, reqs: Sequence[WatchRequest], alerts: Sequence[Alert]) -> ProactiveScore:
    """Recall (events alerted), precision (alerts that were events) and delays."""
    right: dict[int, Alert] = {}
    false_alerts = []
    for a in alerts:
        r = reqs[a.request]
        if r.event is not None and _right(truth, r, a):
            right.setdefault(a.request, a)
        else:
            false_alerts.append((r.text, a.text))
    events = [i for i, r in enumerate(reqs) if r.event is not None]
    delays = tuple(max(0.0, right[i].spoken_at - reqs[i].event) for i in events if i in right)
    missed = tuple(reqs[i].text for i in events if i not in right)
    n_alerts = len(alerts)
    return ProactiveScore(len(right) / max(1, len(events)),
                          (n_alerts - len(false_alerts)) / n_alerts if n_alerts else 1.0,
                          delays, n_alerts, len(events), tuple(false_alerts), missed)
