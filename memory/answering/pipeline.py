"""From a question to an `Answer`: time phrase, retrieval, ranked evidence units, reply.

The top of `memory.answering`: reads the memory only through the `AnswerSource` port
(`memory.answering.source`), parses the question once (`Question`), ranks units with
the configured `UnitRanker` and writes the reply with the memory's `Answerer`. Two ways
to an answer, described in ``docs/answers.md`` ("How a question is answered"): anchored
in time (`_at_time`), or by content (`_by_content`), where the memory abstains (``found``
False) when even the best unit scores under the ranker's ``min_score``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from memory.answering.blend import RerankBlend
from memory.answering.question import Question
from memory.answering.rank import RankContext, Scores, UnitRanker, idf_weights
from memory.answering.reply import NOT_SEEN, ReplyWriter, lead_units, not_yet_text
from memory.answering.source import AnswerSource
from memory.answering.words import content_terms
from memory.evidence import SAID, SHOWN, Answer, Evidence, Moment
from memory.timeparse import TimeFilter

__all__ = ["answer", "ranker_of"]

_SPAN_S = 120.0  # how far a slide or sentence found in a moment is followed across segments
_NEAR_S = 8.0  # a time in a pause between sentences is answered by the nearest one


def answer(source: AnswerSource, text: str, now: float, k: int) -> Answer:
    """Answer ``text`` asked at media time ``now`` from what ``source`` holds by then."""
    question = Question.parse(text, now=now, recent=source.recent_s)
    window = question.time
    assert window is not None
    seen = min(now, source.duration)  # in file mode the session runs on past the video
    if window.point is not None and window.point > seen + 0.5:
        return Answer(text, not_yet_text(window.point, seen), (), now, source.recent(now),
                      (window.start, window.end), {"score": 0.0, "anchored_answer": True},
                      found=False)
    start, end, anchor = _resolve_topic(source, window, now)
    instant = _instant(window, anchor, now, question.asks_more)
    if instant is not None:
        return _at_time(source, question, instant, now)
    query = question.query
    vector = source.embed(query)
    moments = source.answer_options.moments
    hits = source.find(query, vector, moments, now, start, end)
    if not hits and (start is not None or end is not None):
        hits = source.find(query, vector, moments, now)
    return _by_content(source, question, vector, hits, now, (start, end), k)


def ranker_of(source: AnswerSource) -> UnitRanker:
    """The configured ranker, blended with the memory's reranker model when it has one."""
    options = source.answer_options
    reranker = source.reranker
    if reranker is None:
        return options.ranker
    return RerankBlend(options.ranker, reranker, options.reranker_weight)


# -- time --------------------------------------------------------------------------------
def _resolve_topic(source: AnswerSource, window: TimeFilter, now: float):
    start, end, anchor = window.start, window.end, None
    for topic, after in ((window.after_topic, True), (window.before_topic, False)):
        if topic:
            found = source.find(topic, source.embed(topic), 1, now)
            if found:
                anchor = _topic_span(source, found[0], topic, now)
                start, end = (anchor.end - 1.0, anchor.end + 180.0) if after else \
                    (anchor.start - 180.0, anchor.start)
    return start, end, anchor


def _topic_span(source: AnswerSource, moment: Moment, topic: str, now: float) -> Moment:
    """``moment`` narrowed to when the topic itself was on: the slide or sentence in it
    that shares most of the topic's terms, across the segment boundaries it spans."""
    terms = set(content_terms(topic))
    units = [u for u in source.units_between(moment.start - _SPAN_S, moment.end + _SPAN_S,
                                             now) if not u.boilerplate]
    shared = [(len(terms & set(content_terms(u.text))), u) for u in units
              if u.start < moment.end and u.end > moment.start]
    count, best = max(shared, key=lambda p: p[0], default=(0, None))
    if not count:
        return moment
    start, end = _continued_span(best, units)
    return dataclasses.replace(moment, start=start, end=end)


def _continued_span(unit: Evidence, units: list[Evidence]) -> tuple[float, float]:
    """``unit``'s span followed across the units of the same kind and text that abut it
    (a slide line is stored once per segment it was on screen in)."""
    start, end = unit.start, unit.end
    same = [u for u in units if u.kind == unit.kind and u.text == unit.text]
    for u in sorted(same, key=lambda u: u.start):  # the same line, continued
        if u.start <= end + 0.5 and u.end > end:
            end = u.end
    for u in sorted(same, key=lambda u: -u.end):
        if u.end >= start - 0.5 and u.start < start:
            start = u.start
    return start, end


def _shown_whole(source: AnswerSource, units: list[Evidence], now: float) -> list[Evidence]:
    """The lines shown among ``units`` timed from when they came on screen to when they
    went (by ``now``), not by the segment they were found in."""
    shown = [u for u in units if u.kind == SHOWN]
    if not shown:
        return units
    around = source.units_between(min(u.start for u in shown) - _SPAN_S,
                                  max(u.end for u in shown) + _SPAN_S, now)
    out = []
    for u in units:
        if u.kind == SHOWN:
            start, end = _continued_span(u, around)
            u = dataclasses.replace(u, start=min(start, u.start), end=max(end, u.end))
        out.append(u)
    return out


def _instant(window: TimeFilter, anchor: Moment | None, now: float,
             asks_more: bool) -> tuple[float, str] | None:
    """``(instant, mode)`` when time is all a question asks (None otherwise): mode "at"
    (that instant), "latest" (the last thing before it) or "earliest" (the first after)."""
    if asks_more:
        return None
    if window.point is not None:
        return window.point, "at"
    if window.after_topic and anchor is not None:  # the first thing after it went away
        return min(anchor.end + 0.5, now), "earliest"
    if window.before_topic and anchor is not None:
        return max(anchor.start - 0.5, 0.0), "at"
    if window.order == "latest":
        return now, "latest"
    if window.order == "earliest":
        return window.start or 0.0, "earliest"
    return None


def _pick(units: list[Evidence], point: float, mode: str, kind: str | None) -> list[Evidence]:
    """What was said (one sentence) and/or shown (the slide's lines) at the instant."""
    said = [u for u in units if u.kind == SAID]
    screen = [u for u in units if u.kind != SAID and not u.boilerplate]
    if mode == "latest":
        said = sorted(said, key=lambda u: u.end)[-1:]
        point = max((u.start for u in screen), default=point)
    elif mode == "earliest":
        said = sorted(said, key=lambda u: u.start)[:1]
        point = min((u.start for u in screen), default=point)
    else:
        said = sorted(said, key=lambda u: (max(0.0, u.start - point, point - u.end),
                                           -len(u.text)))[:1]
    shown = [u for u in screen if u.holds(point, 0.5)]
    if kind == SHOWN:
        return shown
    if kind == SAID:
        return said
    return said + shown[:1] if said else shown


def _at_time(source: AnswerSource, question: Question, instant: tuple[float, str],
             now: float) -> Answer:
    window = question.time
    assert window is not None
    point, mode = instant
    if mode == "latest":
        lo, hi = max(0.0, now - source.recent_s), now
    elif mode == "earliest":
        lo, hi = point, min(now, point + max(window.end or 0.0, source.recent_s))
    else:
        lo, hi = point - _NEAR_S, min(point + _NEAR_S, now)
    lead = _pick(source.units_between(lo, hi, now), point, mode, question.kind)
    if mode == "latest":  # "the last slide" came on screen when it came, not a segment ago
        lead = _shown_whole(source, lead, now)
    recent = source.recent(now)
    extras = {"score": 1.0 if lead else 0.0, "anchored_answer": True, "point": point}
    at = lead[0].start if lead and mode != "at" else point
    moments = [m for m in source.moments_between(max(0.0, at - 60.0), now)
               if m.start <= at + 1e-6]
    # a time on a boundary belongs to the moment it opens (a slide shown from 0:31 is
    # cited in the segment from 0:31, not the one that ends then)
    holding = next((m for m in moments if m.start <= at < m.end), None) or \
        next((m for m in moments if m.start <= at <= m.end), None)
    span = (window.start, window.end)
    if not lead or holding is None:
        return Answer(question.text, NOT_SEEN, tuple(moments[-1:]), now, recent, span,
                      extras, found=False)
    cited = dataclasses.replace(holding, evidence=tuple(lead))
    text = _write(source, question, [cited], recent, extras)
    return Answer(question.text, text, (cited,), now, recent, span, extras, found=True,
                  evidence=tuple(lead))


# -- content -------------------------------------------------------------------------------
def _by_content(source: AnswerSource, question: Question, vector: np.ndarray,
                hits: list[Moment], now: float, window, k: int) -> Answer:
    hits = [source.captioned(m) for m in hits]
    recent = source.recent(now)
    ranker = ranker_of(source)
    found = source.units_in(hits, now)
    units, owners = found.units, found.owners
    scores = _scores(source, ranker, question, vector, found, now)
    extras = {"ranker": ranker.name, "score": 0.0}
    usable = [i for i in range(len(units)) if not units[i].boilerplate]
    if not usable:
        return Answer(question.text, NOT_SEEN, tuple(hits[:k]), now, recent, window, extras,
                      found=False)
    best = max(usable, key=lambda i: scores.values[i])
    extras["score"] = float(scores.values[best])
    extras["no_answer"] = bool(scores.no_answer[best]) if scores.no_answer is not None \
        else False
    lead_moment = owners[best]
    scored = [dataclasses.replace(units[i], score=float(scores.values[i]))
              for i in range(len(units))]
    mine = sorted((scored[i] for i in usable if owners[i] == lead_moment and i != best),
                  key=lambda u: -u.score)
    mine = _shown_whole(source, [scored[best]] + mine, now)
    lead = lead_units(mine, question=question)
    first = dataclasses.replace(hits[lead_moment], evidence=tuple(mine))
    cited = [first] + [m for j, m in enumerate(hits) if j != lead_moment][: max(0, k - 1)]
    if extras["score"] < ranker.min_score or extras["no_answer"]:
        return Answer(question.text, NOT_SEEN, tuple(cited), now, recent, window, extras,
                      found=False)
    text = _write(source, question, cited, recent, extras)
    return Answer(question.text, text, tuple(cited), now, recent, window, extras, found=True,
                  evidence=tuple(lead))


def _write(source: AnswerSource, question: Question, cited: list[Moment],
           recent: Moment | None, extras: dict) -> str:
    """The reply by the memory's answerer; one that says how it came about (a generative
    writer, which may fall back to the extractive reply) says so in ``extras``."""
    writer = source.answerer
    if not isinstance(writer, ReplyWriter):
        return writer.answer(question.text, cited, recent)
    reply = writer.reply(question.text, cited, recent)
    extras["answered_by"] = reply.answered_by
    extras["cited_times"] = list(reply.cited)
    if reply.fallback is not None:
        extras["fallback"] = reply.fallback
    return reply.text


def _scores(source: AnswerSource, ranker: UnitRanker, question: Question,
            vector: np.ndarray, found, now: float) -> Scores:
    """Each unit's score. Terms are weighed by the segments indexed by ``now``: a term of
    a later segment is as rare as one never heard."""
    if not found.units:
        return Scores(np.zeros(0))
    docs, doc_freq = source.term_counts(question.terms, now)
    idf = idf_weights(question.terms, docs, doc_freq)
    priors = [1.0 / (1.0 + j) for j in found.owners]
    context = RankContext(vector, found.vectors, priors, idf, found.owners)
    return ranker.rank(question, found.units, context)
