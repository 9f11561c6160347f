"""Built-in capabilities over the video memory: search, summarize a range, make a quiz.

Each reads the memory through `venus.harness.MemoryView` and answers from the evidence
fixed at the request: searches only look at video *before* the request time, and a
range never extends past it, so a slow answer is still about what the user had seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from venus.capabilities.text import (
    Sentence,
    clock_label,
    content_words,
    rank_sentences,
    sentences_of,
)
from venus.errors import CapabilityFailure
from venus.events import Citation
from venus.harness.capability import RetryPolicy, capability
from venus.harness.context import CapabilityContext

__all__ = ["MemoryHit", "QuizAnswer", "QuizQuestion", "RangeSummary", "SearchAnswer",
           "make_quiz", "search_memory", "summarize_range"]

DEFAULT_RANGE_S = 300.0


@dataclass(frozen=True)
class MemoryHit:
    start: float
    end: float
    score: float
    text: str
    transcript: str
    keyframe: str | None


@dataclass(frozen=True)
class SearchAnswer:
    summary: str
    hits: tuple[MemoryHit, ...]
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class RangeSummary:
    """``summary`` is what is said; ``titles`` the slides shown, ``sentences`` the key
    sentences (with ``citations`` in the same order), all in video time."""

    summary: str
    start: float
    end: float
    sentences: tuple[str, ...]
    citations: tuple[Citation, ...]
    titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuizQuestion:
    """One question, its ``answer`` (hide it until asked), the choices, the video time it
    is about and the sentence or slide line it was made from (``source``)."""

    question: str
    answer: str
    options: tuple[str, ...]
    time: float
    source: str = ""


@dataclass(frozen=True)
class QuizAnswer:
    summary: str
    questions: tuple[QuizQuestion, ...]
    citations: tuple[Citation, ...]


@capability(timeout=20.0, retry=RetryPolicy(attempts=2, backoff=0.5))
def search_memory(query: Annotated[str, Field(min_length=1, max_length=500)],
                  context: CapabilityContext,
                  k: Annotated[int, Field(ge=1, le=20)] = 3) -> SearchAnswer:
    """Find the moments of the video so far that best match a question or description."""
    memory = context.require_memory()
    moments = memory.search(query, k=k, before=context.snapshot.time)
    hits = tuple(MemoryHit(m.start, m.end, float(m.score), m.text, m.transcript, m.keyframe)
                 for m in moments)
    if not hits:
        return SearchAnswer(f"I didn't find anything about {query} in the video so far.", (), ())
    best = hits[0]
    summary = f"At {clock_label(best.start)}: {_first_line(best.text or best.transcript)}"
    answer = getattr(memory, "answer", None)
    if callable(answer):  # a memory that answers: say its short answer (or that it has none)
        summary = answer(query, at=context.snapshot.time).text
    cites = tuple(Citation(h.start, h.end, h.keyframe, clock_label(h.start)) for h in hits)
    return SearchAnswer(summary, hits, cites)


def _first_line(text: str, width: int = 160) -> str:
    line = next((p.strip() for p in text.splitlines() if p.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


@capability(timeout=30.0)
def summarize_range(context: CapabilityContext, start: float | None = None,
                    end: float | None = None,
                    sentences: Annotated[int, Field(ge=1, le=10)] = 3) -> RangeSummary:
    """Summarize what happened between two times (default: the last five minutes): the
    slides shown and the key sentences said."""
    lo, hi = _range(start, end, context)
    units = _units(context, lo, hi)
    titles = _titles(units)
    picked = rank_sentences(_said(context, units, lo, hi), sentences)
    parts = [f"From {clock_label(lo)} to {clock_label(hi)}:"]
    if titles:
        parts.append(f"slides {_listed(titles)}.")
    if picked:
        parts.append(("Key points: " if titles else "") + " ".join(s.text for s in picked))
    if len(parts) == 1:
        raise CapabilityFailure(
            f"nothing was said or shown between {clock_label(lo)} and {clock_label(hi)}")
    return RangeSummary(" ".join(parts), lo, hi, tuple(s.text for s in picked), _cite(picked),
                        tuple(titles))


@capability(timeout=30.0)
def make_quiz(context: CapabilityContext, start: float | None = None,
              end: float | None = None,
              questions: Annotated[int, Field(ge=1, le=10)] = 3) -> QuizAnswer:
    """Make a short fill-in-the-blank quiz from what was shown or said in a time range;
    every question comes with its answer and the time it is about."""
    lo, hi = _range(start, end, context)
    units = _units(context, lo, hi)
    titles = set(_titles(units))
    candidates = _said(context, units, lo, hi) + [
        Sentence(u.text, u.start, u.end) for u in units
        if u.kind == "shown" and not u.boilerplate and u.text not in titles
        and len(content_words(u.text)) >= 3]
    if not candidates:
        raise CapabilityFailure(
            f"nothing was recorded between {clock_label(lo)} and {clock_label(hi)}")
    keywords = _keywords(candidates)
    quiz: list[QuizQuestion] = []
    used: list[Sentence] = []
    for sentence in rank_sentences(candidates, len(candidates)):
        question = _cloze(sentence, keywords, {q.answer for q in quiz})
        if question is not None:
            quiz.append(question)
            used.append(sentence)
        if len(quiz) == questions:
            break
    if not quiz:
        raise CapabilityFailure("there is not enough said or shown in that range for a quiz")
    quiz.sort(key=lambda q: q.time)
    used.sort(key=lambda s: s.start)
    return QuizAnswer(_quiz_text(quiz, lo, hi), tuple(quiz), _cite(used))


def _quiz_text(quiz: list[QuizQuestion], lo: float, hi: float) -> str:
    lines = [f"Here's a {len(quiz)}-question quiz on {clock_label(lo)}-{clock_label(hi)}:"]
    lines += [f"{i}. ({clock_label(q.time)}) {q.question}" for i, q in enumerate(quiz, 1)]
    lines.append("Answers: " + "; ".join(f"{i}. {q.answer} ({clock_label(q.time)})"
                                         for i, q in enumerate(quiz, 1)))
    return "\n".join(lines)


def _range(start: float | None, end: float | None,
           context: CapabilityContext) -> tuple[float, float]:
    """The range in video time, clamped to what the memory holds and to the request.

    In file mode the session clock runs on past the video, so a range computed back from
    the request ("the last two minutes", a start past the video's end and an end at the
    request) is moved to end where the video ends, keeping its length."""
    now = context.snapshot.time
    held = min(now, float(getattr(context.require_memory(), "duration", now)))
    hi = min(now if end is None else end, held)
    if start is None:
        lo = max(0.0, hi - DEFAULT_RANGE_S)
    elif start < held:
        lo = max(0.0, start)
    elif end is None or end >= now - 1e-6:
        lo, hi = max(0.0, held - (now - start)), held
    else:
        raise CapabilityFailure(f"the video so far ends at {clock_label(held)}; "
                                f"ask about a range before that")
    if hi <= lo:
        raise CapabilityFailure(f"the range {clock_label(lo)}-{clock_label(hi)} is empty; "
                                f"give a start before the end and before now")
    return lo, hi


def _units(context: CapabilityContext, lo: float, hi: float) -> list:
    """What was said and shown in the range (from the memory's evidence units; a memory
    without them falls back to the sentences of its moments)."""
    memory = context.require_memory()
    if callable(getattr(memory, "evidence", None)):
        return list(memory.evidence(lo, hi))
    return [_Said(s.text, s.start, s.end) for s in sentences_of(memory.moments(lo, hi))]


@dataclass(frozen=True)
class _Said:
    text: str
    start: float
    end: float
    kind: str = "said"
    boilerplate: bool = False


def _titles(units) -> list[str]:
    """The first line of each slide shown (not a footer), in order, once each."""
    titles: list[str] = []
    first_at: set[float] = set()
    for u in units:
        if u.kind != "shown" or u.boilerplate or round(u.start, 2) in first_at:
            continue
        first_at.add(round(u.start, 2))
        if u.text not in titles:
            titles.append(u.text)
    return titles


def _said(context: CapabilityContext, units, lo: float, hi: float) -> list[Sentence]:
    frames = {}
    for m in context.require_memory().moments(lo, hi):
        frames[(m.start, m.end)] = m.keyframe
    out = []
    for u in units:
        if u.kind == "said" and len(content_words(u.text)) >= 2:
            keyframe = next((k for (a, b), k in frames.items() if a <= u.start < b), None)
            out.append(Sentence(u.text, u.start, u.end, keyframe))
    return out


def _listed(titles: list[str]) -> str:
    quoted = [f'"{t}"' for t in titles]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _keywords(sentences: list[Sentence]) -> list[str]:
    """Answer candidates: longer content words, most frequent first (also the distractors)."""
    counts: dict[str, int] = {}
    for s in sentences:
        for w in content_words(s.text):
            if len(w) >= 5 or w.isdigit():
                counts[w] = counts.get(w, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))


def _cloze(sentence: Sentence, keywords: list[str], used: set[str]) -> QuizQuestion | None:
    words = set(content_words(sentence.text))
    answer = next((w for w in keywords if w in words and w not in used), None)
    if answer is None:
        return None
    blanked = re.sub(rf"\b{re.escape(answer)}\b", "_____", sentence.text, count=1,
                     flags=re.IGNORECASE)
    distractors = [w for w in keywords if w != answer and w not in words][:3]
    options = tuple(sorted([answer, *distractors]))
    return QuizQuestion(f"Fill in the blank: {blanked}", answer, options, sentence.start,
                        sentence.text)


def _cite(sentences: list[Sentence]) -> tuple[Citation, ...]:
    return tuple(Citation(s.start, s.end, s.keyframe, clock_label(s.start)) for s in sentences)
