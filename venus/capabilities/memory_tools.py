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
    summary: str
    start: float
    end: float
    sentences: tuple[str, ...]
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class QuizQuestion:
    question: str
    answer: str
    options: tuple[str, ...]
    time: float


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
    summary = f"At {clock_label(best.start)}: {best.text or best.transcript}"
    cites = tuple(Citation(h.start, h.end, h.keyframe, clock_label(h.start)) for h in hits)
    return SearchAnswer(summary, hits, cites)


@capability(timeout=30.0)
def summarize_range(context: CapabilityContext, start: float | None = None,
                    end: float | None = None,
                    sentences: Annotated[int, Field(ge=1, le=10)] = 3) -> RangeSummary:
    """Summarize what happened between two times (default: the last five minutes)."""
    lo, hi = _range(start, end, context)
    picked = rank_sentences(_sentences(context, lo, hi), sentences)
    text = " ".join(s.text for s in picked)
    summary = f"From {clock_label(lo)} to {clock_label(hi)}: {text}"
    return RangeSummary(summary, lo, hi, tuple(s.text for s in picked), _cite(picked))


@capability(timeout=30.0)
def make_quiz(context: CapabilityContext, start: float | None = None,
              end: float | None = None,
              questions: Annotated[int, Field(ge=1, le=10)] = 3) -> QuizAnswer:
    """Make a short fill-in-the-blank quiz from what was shown or said in a time range."""
    lo, hi = _range(start, end, context)
    candidates = _sentences(context, lo, hi)
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
    summary = f"Here's a {len(quiz)}-question quiz. First: {quiz[0].question}"
    return QuizAnswer(summary, tuple(quiz), _cite(used))


def _range(start: float | None, end: float | None,
           context: CapabilityContext) -> tuple[float, float]:
    now = context.snapshot.time
    hi = now if end is None else min(end, now)  # never past the request: causal evidence
    lo = max(0.0, hi - DEFAULT_RANGE_S) if start is None else max(0.0, start)
    if hi <= lo:
        raise CapabilityFailure(f"the range {clock_label(lo)}-{clock_label(hi)} is empty; "
                                f"give a start before the end and before now")
    return lo, hi


def _sentences(context: CapabilityContext, lo: float, hi: float) -> list[Sentence]:
    found = sentences_of(context.require_memory().moments(lo, hi))
    if not found:
        raise CapabilityFailure(
            f"nothing was recorded between {clock_label(lo)} and {clock_label(hi)}")
    return found


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
    return QuizQuestion(f"Fill in the blank ({clock_label(sentence.start)}): {blanked}",
                        answer, options, sentence.start)


def _cite(sentences: list[Sentence]) -> tuple[Citation, ...]:
    return tuple(Citation(s.start, s.end, s.keyframe, clock_label(s.start)) for s in sentences)
