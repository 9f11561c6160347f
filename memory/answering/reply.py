"""The extractive reply: the lead units quoted with their time.

Beside the rankers, under the pipeline: `lead_units` picks what a reply quotes from the
scored units of the first moment, `ExtractiveAnswerer` (the embedded `Answerer`) writes
``At 1:29 it was said: "..."``. The rules (units within `CLOSE_SCORE`, a sentence run
on into the next, a "why" read on to its reason) are described in ``docs/answers.md``
("The reply").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from memory.answering.question import Question
from memory.answering.words import REASONS
from memory.evidence import SAID, SEEN, SHOWN, Evidence, Moment, format_time

__all__ = ["CLOSE_SCORE", "CONTINUE_GAP_S", "NOT_SEEN", "ExtractiveAnswerer", "Reply",
           "ReplyWriter", "continued", "lead_units", "not_yet_text"]

NOT_SEEN = "I haven't seen anything about that in the video so far."
CLOSE_SCORE = 0.05
"""A unit scoring within this of the lead is quoted beside it (same moment, other text)."""
CONTINUE_GAP_S = 1.0
"""A lead sentence without an end mark runs on into a sentence said within this gap in
its moment (the gap that cuts a sentence at a pause, `memory.store.units.PAUSE_S`)."""
_FINISHED = re.compile(r"[.!?…]['\")\]]*$")


@dataclass(frozen=True)
class Reply:
    """A written reply: ``text``, the media times it cites that the evidence holds
    (``cited``), who wrote it (``answered_by``: "extractive" or the model's name) and,
    when a generative writer's reply was not used, why (``fallback``)."""

    text: str
    cited: tuple[float, ...] = ()
    fallback: str | None = None
    answered_by: str = "extractive"


@runtime_checkable
class ReplyWriter(Protocol):
    """An `Answerer` that also says how its reply came about (`Reply`): the pipeline puts
    that in `Answer.extras` (``answered_by``, ``cited_times``, ``fallback``)."""

    def reply(self, question: str, moments: Sequence[Moment],
              recent: Moment | None = None) -> Reply: ...


def not_yet_text(point: float, seen: float) -> str:
    """A question about a time past what the memory has seen (``seen``: its end)."""
    return (f"{format_time(point)} is past what I have seen so far (up to "
            f"{format_time(seen)}): I haven't seen that part yet.")


def lead_units(units: Sequence[Evidence], most: int = 4,
               question: str | Question | None = None) -> list[Evidence]:
    """The units an answer leads with: the first (best) one and those scoring within
    `CLOSE_SCORE` of it, other texts only, at most ``most``; a first sentence left
    unfinished, or one that answers a "why" ``question`` without a reason, is quoted
    with the sentence that follows it in its moment (`continued`)."""
    if not units:
        return []
    explain = question is not None and Question.of(question).wanted == "reason" \
        and not REASONS.search(units[0].text)
    first, after = continued(units[0], units, explain)
    out: list[Evidence] = [first]
    for u in units[1:]:
        if u is after:
            continue
        if u.score >= units[0].score - CLOSE_SCORE and all(u.text != o.text for o in out):
            out.append(u)
    return out[:most]


def continued(lead: Evidence, units: Sequence[Evidence],
              explain: bool = False) -> tuple[Evidence, Evidence | None]:
    """``lead`` run on into the next sentence of its moment when it ends unfinished (no
    ``.!?``) or, with ``explain``, whenever one follows; and the unit appended (None
    when nothing was)."""
    if lead.kind != SAID or (not explain and _FINISHED.search(lead.text.strip())):
        return lead, None
    nxt = min((u for u in units if u.kind == SAID and u.segment_id == lead.segment_id
               and lead.end - 0.25 <= u.start <= lead.end + CONTINUE_GAP_S and u is not lead),
              key=lambda u: u.start, default=None)
    if nxt is None:
        return lead, None
    return dataclasses.replace(lead, text=f"{lead.text.strip()} {nxt.text.strip()}",
                               end=nxt.end), nxt


@dataclass
class ExtractiveAnswerer:
    """Quotes the lead evidence unit of the first moment, and the next ones scoring
    within `CLOSE_SCORE` of it (all of them when unscored: the lines of a slide asked
    about by time), with its time; a moment without units gets its first sentence."""

    max_chars: int = 170
    max_text: int = 200
    verbs: dict[str, str] = field(default_factory=lambda: {
        SAID: "it was said", SHOWN: "the screen showed", SEEN: "the picture showed"})

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str:
        lead = lead_units([e for m in moments[:1] for e in m.evidence], question=question)
        if not lead:
            moment = moments[0] if moments else recent
            if moment is None:
                return NOT_SEEN
            text = moment.transcript or moment.ocr_text or moment.caption
            if not text:
                return NOT_SEEN
            return self.quote([Evidence(SAID if moment.transcript else SHOWN,
                                        _first_sentence(text), moment.start, moment.end)])
        return self.quote(lead)

    def quote(self, units: Sequence[Evidence]) -> str:
        """``At m:ss <verb>: "<unit>"`` for the first unit, with the next ones appended
        while the reply stays under ``max_text`` characters."""
        first = units[0]
        text = f'At {format_time(first.start)} {self.verbs[first.kind]}: "{self._clip(first.text)}"'
        for unit in units[1:]:
            if unit.kind == first.kind:
                more = f' and "{self._clip(unit.text)}"'
            else:
                verb = self.verbs[unit.kind].replace("it was", "and")
                more = f'; {verb}: "{self._clip(unit.text)}"'
            if len(text) + len(more) + 1 > self.max_text:
                break
            text += more
        return text + "."

    def _clip(self, text: str) -> str:
        text = " ".join(text.split()).rstrip(".")
        return text if len(text) <= self.max_chars else text[: self.max_chars - 1] + "…"


def _first_sentence(text: str) -> str:
    return next((p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", text) if p.strip()), "")
