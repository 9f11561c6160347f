"""From a question to an `Answer`: time phrase, retrieval, evidence units, reply.

Runs inside one locked read of a `MemoryReader`, through the `AnswerSource` port it
implements, so the question is embedded once and the store is passed through once. The
port is declared here and the reader imports this module, never the other way round. Two ways to an answer:

- *Anchored in time* ("what was said at 0:09", "what was on the slide at 1:30", "just
  now", "at the start", "after the slide about X", with nothing else asked): the moment
  holding that time is cited first and the reply quotes what was said (the sentence
  spoken then, or the nearest) or shown (the slide's lines) at that time. A time after
  the asking time is answered as not seen yet.
- *By content*: the best moments are retrieved (dense + FTS5, fused), their units are
  scored (`memory.answer.UnitScorer`, and a `Reranker` when one is set), and the memory
  abstains (``found`` False) when even the best unit is below
  ``AnswerOptions.min_score``; otherwise the moment holding the lead unit is cited first.

Footers and other screen text repeated on most key frames are never quoted.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Protocol

import numpy as np

from memory.answer import (
    NOT_SEEN,
    SCORERS,
    asked_kind,
    content_terms,
    idf_weights,
    lead_units,
    not_yet_text,
)
from memory.evidence import SAID, SHOWN, Answer, Evidence, Moment
from memory.store.levels import SEGMENT
from memory.store.records import UnitRecord
from memory.store.units import build_units, to_evidence
from memory.timeparse import TimeFilter, parse_time

if TYPE_CHECKING:
    from memory.store.config import MemoryModels, StoreOptions
    from memory.store.db import MemoryDB
    from memory.store.levels import Level
    from memory.store.records import ChunkRecord
    from memory.store.retrieval import LevelIndex

__all__ = ["AnswerSource", "answer_question", "evidence_between"]

BOILERPLATE_MIN_FRAMES = 3
BOILERPLATE_SHARE = 0.5
_SPAN_S = 120.0  # how far a slide or sentence found in a moment is followed across segments
_NEAR_S = 8.0  # a time in a pause between sentences is answered by the nearest one


class AnswerSource(Protocol):
    """What answering reads from the store: `MemoryReader` implements it, the lock held.

    The members are the reader's own, as answering has used them so far (the underscored
    ones are the reader's internals). Declaring them here is what keeps this module from
    importing the reader; giving the port public, question-shaped methods is the
    answering refactor of issue 27 (item 1).
    """

    options: StoreOptions
    db: MemoryDB
    models: MemoryModels

    @property
    def duration(self) -> float: ...

    def _embed(self, texts: list[str]) -> np.ndarray: ...

    def _cached_vector(self, text: str) -> np.ndarray: ...

    def _index(self, level: Level) -> LevelIndex: ...

    def _search(self, query: str, vector: np.ndarray, k: int, before: float | None,
                start: float | None = None, end: float | None = None,
                level: Level = SEGMENT) -> list[Moment]: ...

    def _tail(self, before: float | None, start: float | None,
              end: float | None) -> list[ChunkRecord]: ...

    def _closed_by(self, limit: float) -> float: ...

    def _moments(self, start: float, end: float, level: Level) -> list[Moment]: ...

    def _recent(self, at: float) -> Moment | None: ...

    def _captioned(self, moment: Moment) -> Moment: ...


def answer_question(reader: AnswerSource, question: str, now: float, k: int) -> Answer:
    """Answer ``question`` asked at media time ``now`` from what ``reader`` holds by then."""
    window = parse_time(question, now=now, recent=reader.options.recent_s)
    seen = min(now, reader.duration)  # in file mode the session runs on past the video
    if window.point is not None and window.point > seen + 0.5:
        return Answer(question, not_yet_text(window.point, seen), (), now, reader._recent(now),
                      (window.start, window.end), {"score": 0.0, "anchored_answer": True},
                      found=False)
    start, end, anchor = _resolve_topic(reader, window, now)
    query = window.query or question
    instant = _instant(window, anchor, now, bool(content_terms(query)))
    if instant is not None:
        return _at_time(reader, question, window, instant, now)
    vector = reader._embed([query])[0]
    hits = reader._search(query, vector, reader.options.answer.moments, now, start, end)
    if not hits and (start is not None or end is not None):
        hits = reader._search(query, vector, reader.options.answer.moments, now)
    return _by_content(reader, question, vector, hits, now, (start, end), k)


# -- time --------------------------------------------------------------------------------
def _resolve_topic(reader: AnswerSource, window: TimeFilter, now: float):
    start, end, anchor = window.start, window.end, None
    for topic, after in ((window.after_topic, True), (window.before_topic, False)):
        if topic:
            found = reader._search(topic, reader._embed([topic])[0], 1, now)
            if found:
                anchor = _topic_span(reader, found[0], topic, now)
                start, end = (anchor.end - 1.0, anchor.end + 180.0) if after else \
                    (anchor.start - 180.0, anchor.start)
    return start, end, anchor


def _topic_span(reader: AnswerSource, moment: Moment, topic: str, now: float) -> Moment:
    """``moment`` narrowed to when the topic itself was on: the slide or sentence in it that
    shares most of the topic's terms, across the segment boundaries it spans. A segment is
    a fixed stretch of time; "after the slide about X" means after that slide went away,
    not after whichever segment the search found holding it (which can end before the
    slide did, or long after)."""
    terms = set(content_terms(topic))
    units = [u for u in evidence_between(reader, moment.start - _SPAN_S, moment.end + _SPAN_S,
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


def _shown_whole(reader: AnswerSource, units: list[Evidence], now: float) -> list[Evidence]:
    """The lines shown among ``units`` timed from when they came on screen to when they
    went (by ``now``), not by the segment they were found in: "At 0:14 the screen showed"
    for a slide shown from 0:14, found in the segment from 0:24."""
    shown = [u for u in units if u.kind == SHOWN]
    if not shown:
        return units
    around = evidence_between(reader, min(u.start for u in shown) - _SPAN_S,
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


def _at_time(reader: AnswerSource, question: str, window: TimeFilter,
             instant: tuple[float, str], now: float) -> Answer:
    point, mode = instant
    if mode == "latest":
        lo, hi = max(0.0, now - reader.options.recent_s), now
    elif mode == "earliest":
        lo, hi = point, min(now, point + max(window.end or 0.0, reader.options.recent_s))
    else:
        lo, hi = point - _NEAR_S, min(point + _NEAR_S, now)
    lead = _pick(evidence_between(reader, lo, hi, now), point, mode, asked_kind(question))
    recent = reader._recent(now)
    extras = {"score": 1.0 if lead else 0.0, "anchored_answer": True, "point": point}
    at = lead[0].start if lead and mode != "at" else point
    moments = [m for m in reader._moments(max(0.0, at - 60.0), now, SEGMENT)
               if m.start <= at + 1e-6]
    holding = next((m for m in moments if m.start <= at <= m.end), None)
    if not lead or holding is None:
        return Answer(question, NOT_SEEN, tuple(moments[-1:]), now, recent,
                      (window.start, window.end), extras, found=False)
    cited = dataclasses.replace(holding, evidence=tuple(lead))
    text = _write(reader, question, [cited], recent)
    return Answer(question, text, (cited,), now, recent, (window.start, window.end), extras,
                  found=True, evidence=tuple(lead))


def evidence_between(reader: AnswerSource, lo: float, hi: float,
                     now: float | None = None) -> list[Evidence]:
    """Units overlapping ``[lo, hi]`` that end by ``now`` (default ``hi``), in time order,
    footers flagged: closed segments' stored units and the open stretch's, cut now."""
    now = hi if now is None else now
    records = reader.db.units_overlapping(lo, hi)
    tail = reader._tail(now, lo, hi)
    if tail:  # segments closed after ``now`` are open then: their chunks are the tail's
        closed = reader._closed_by(now)
        records = [r for r in records if r.end <= closed + 1e-6] + build_units(tail)
    records = sorted((r for r in records if r.end <= now + 1e-6), key=lambda r: r.start)
    flags = _boilerplate(reader, records, now)
    return [to_evidence(r, 0.0, flag) for r, flag in zip(records, flags)]


# -- content -------------------------------------------------------------------------------
def _by_content(reader: AnswerSource, question: str, vector: np.ndarray,
                hits: list[Moment], now: float, window, k: int) -> Answer:
    hits = [reader._captioned(m) for m in hits]
    recent = reader._recent(now)
    options = reader.options.answer
    records, owners = _candidate_units(reader, hits, now)
    flags = _boilerplate(reader, records, now)
    units = [to_evidence(r, 0.0, f) for r, f in zip(records, flags)]
    scores, no_answer = _scores(reader, question, vector, units, records, owners, now)
    extras = {"scorer": options.scorer, "score": 0.0}
    usable = [i for i in range(len(units)) if not units[i].boilerplate]
    if not usable:
        return Answer(question, NOT_SEEN, tuple(hits[:k]), now, recent, window, extras,
                      found=False)
    best = max(usable, key=lambda i: scores[i])
    extras["score"] = float(scores[best])
    extras["no_answer"] = bool(no_answer[best]) if no_answer is not None else False
    lead_moment = owners[best]
    scored = [dataclasses.replace(units[i], score=float(scores[i])) for i in range(len(units))]
    mine = sorted((scored[i] for i in usable if owners[i] == lead_moment and i != best),
                  key=lambda u: -u.score)
    mine = _shown_whole(reader, [scored[best]] + mine, now)
    lead = lead_units(mine, question=question)
    first = dataclasses.replace(hits[lead_moment], evidence=tuple(mine))
    cited = [first] + [m for j, m in enumerate(hits) if j != lead_moment][: max(0, k - 1)]
    if extras["score"] < options.min_score or extras["no_answer"]:
        return Answer(question, NOT_SEEN, tuple(cited), now, recent, window, extras,
                      found=False)
    text = _write(reader, question, cited, recent)
    return Answer(question, text, tuple(cited), now, recent, window, extras, found=True,
                  evidence=tuple(lead))


def _candidate_units(reader: AnswerSource, hits: list[Moment], now: float):
    """The units inside the retrieved moments, with the index of the moment of each."""
    ids = [m.id for m in hits if m.level == SEGMENT.name and m.id is not None]
    stored: dict[int, list[UnitRecord]] = {}
    for u in reader.db.units_of(ids):
        stored.setdefault(u.segment_id, []).append(u)
    records, owners = [], []
    for j, m in enumerate(hits):
        if m.level == SEGMENT.name:
            mine = stored.get(m.id, [])
        else:  # the open stretch: cut its units now, embed them (cached)
            mine = build_units(reader.db.chunks_ending_in(m.start, min(m.end, now)))
            for u in mine:
                u.embedding = reader._cached_vector(u.text)
        mine = [u for u in mine if u.end <= now + 1e-6 and u.embedding is not None]
        records += mine
        owners += [j] * len(mine)
    return records, owners


def _boilerplate(reader: AnswerSource, records: list[UnitRecord], now: float) -> list[bool]:
    """Screen lines whose template was on most key frames so far (footers)."""
    templates = sorted({r.template for r in records if r.kind == SHOWN and r.template})
    counts = reader.db.screen_counts(templates, now)
    frames = max(reader.db.keyframes_before(now), 1)
    return [r.kind == SHOWN and counts.get(r.template, 0) >= BOILERPLATE_MIN_FRAMES
            and counts.get(r.template, 0) >= BOILERPLATE_SHARE * frames for r in records]


def _scores(reader: AnswerSource, question: str, vector: np.ndarray, units: list[Evidence],
            records: list[UnitRecord], owners: list[int], now: float):
    """Each unit's score, and (with a SQuAD 2.0 style reranker) whether the model rates
    "no answer" above the unit's best span (None without such a model). Terms are
    weighed by the segments indexed by ``now``: a term of a later segment is as rare as
    one never heard."""
    if not units:
        return np.zeros(0), None
    options = reader.options.answer
    scorer = SCORERS[options.scorer]
    terms = list(dict.fromkeys(content_terms(question)))
    text_index = reader.db.segment_text
    below = None
    if now < reader.duration:  # asked back in time: only what was indexed by then
        ids = reader._index(SEGMENT).id_range(now)
        below = ids[1] if ids else 0
    idf = idf_weights(terms, text_index.rows(below), text_index.doc_freq(terms, below))
    vectors = np.vstack([r.embedding for r in records]).astype(np.float32)
    priors = [1.0 / (1.0 + j) for j in owners]
    scores = scorer.score(question, vector, units, vectors, priors, idf, groups=owners)
    reranker = reader.models.reranker
    if reranker is None:
        return scores, None
    relevance = reranker.rerank(question, [u.text for u in units])
    squashed = np.array([1.0 / (1.0 + math.exp(-r.score)) for r in relevance])
    w = options.reranker_weight
    no_answer = None
    if any(r.no_answer is not None for r in relevance):
        no_answer = [r.no_answer is not None and r.no_answer >= r.score for r in relevance]
    return (1.0 - w) * scores + w * squashed, no_answer


def _write(reader: AnswerSource, question: str, cited: list[Moment],
           recent: Moment | None) -> str:
    return reader.models.answerer.answer(question, cited, recent)
