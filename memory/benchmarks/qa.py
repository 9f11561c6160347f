"""The answer benchmark: does a reply lead with the fact, and abstain when it should?

A generated lecture (one slide per topic, each with one line shown and never said) is
ingested, and questions of seven kinds are asked:

==========  ==================================================================  =========
kind        question                                                            asked at
==========  ==================================================================  =========
spoken      a fact only said in the narration                                   the end
slide       a fact only shown on the slide                                      the end
content     the topic's ordinary question (said, often also shown)              the end
time_said   "What was said at M:SS?" (M:SS inside a sentence)                   the end
time_slide  "What was on the slide at M:SS?"                                    the end
off_topic   about nothing in the lecture                                        the end
future      a spoken or slide fact of a later topic                             before it
==========  ==================================================================  =========

Splits (`SPLITS`, one data file each, read by `memory.benchmarks.qa_splits`; every file
says what its split is and how it was written): ``tuning`` (the sample lecture's topics,
seed 0, eSpeak ``en-us``), ``dev`` (a third topic set, seed 4242, Flite's ``slt`` voice: a
split to diagnose on that nothing was written against), ``dev2`` (history, arts,
economics and technology, seed 5150, Piper's voice, which Whisper hears well enough that
its misses are mostly choices), ``dev3`` (everyday subjects, seed 6161, Piper's voice,
written blind after dev2's rules), ``dev4`` (held-out's fields on other subjects, seed
7373, Piper's voice, written blind after dev3's rules, questions worded as a person asks
them), ``dev5`` (the same fields, other subjects, seed 8484, Piper's voice, written blind
after dev4's rules, more "how" and "why") and ``held-out`` (other subjects, seed 2027,
Piper's neural ``en_US-joe-medium`` voice). No two splits share a topic or a seed.
Thresholds are chosen on the tuning and dev splits only (`calibrate`), never on held-out.

Why a fact key was missed is reported too: ``heard`` is whether any sentence or line the
memory holds contains an accepted phrase at all (if none does, Whisper misheard it and
no choice of unit could have answered).

Scoring is what a reader of ``Answer.text`` sees, strictly: a key is right when the
memory answered (``found``) and the text holds one of the accepted phrases, compared as
words after `normalize` (lower case, numbers as words, British/American spellings
folded); a time-anchored reply is anchored when its first citation holds the time it
names; a fact's *moment* is right when the memory answered and its first citation
overlaps where the fact is (the sentence saying a spoken fact, the slide of a slide or
content fact), whether or not Whisper heard the words right: the reader who clicks the
citation hears or sees it. ``key_accuracy_heard`` is key accuracy on the facts the memory
holds in words (``heard``). An abstention is ``found`` False. Timing lives in
``venus bench qa``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.answering.reply import NOT_SEEN
from memory.benchmarks.qa_splits import SPLITS, Split
from memory.evidence import format_time
from memory.models.textnorm import normalize_words
from memory.samples.lecture import LectureScript, Slide

__all__ = ["ANSWERABLE", "FACTS", "KINDS", "SPLITS", "QAQuestion", "QAResult", "Split", "ask_all",
           "build_lecture", "calibrate", "contains", "normalize", "qa_script", "questions",
           "summarize"]

KINDS = ("spoken", "slide", "content", "time_said", "time_slide", "off_topic", "future")
ANSWERABLE = ("spoken", "slide", "content", "time_said", "time_slide")
TIMED = ("time_said", "time_slide")
FACTS = ("spoken", "slide", "content")


@dataclass(frozen=True)
class QAQuestion:
    kind: str
    question: str
    ask_at: float | None = None   # None: at the end of the video
    accept: tuple[str, ...] = ()  # any one of these phrases (time_said: the sentence)
    span: tuple[float, float] | None = None  # where the answer is (recall@5)
    anchor: float | None = None   # the time a time-anchored question names
    topic: str = ""

    @property
    def answerable(self) -> bool:
        return self.kind in ANSWERABLE


@dataclass
class QAResult:
    question: QAQuestion
    asked_at: float
    found: bool
    text: str
    score: float                 # the lead evidence's score (calibration)
    contains: bool               # the text holds an accepted phrase (whether found or not)
    anchored: bool | None        # first citation holds the anchor (time kinds only)
    recalled: bool | None        # a top-5 search hit overlaps the span (fact kinds)
    ms: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)
    heard: bool | None = None    # some sentence or line in memory holds an accepted phrase
    moment: bool | None = None   # the first citation holds the fact's span (fact kinds)


# -- the lecture ------------------------------------------------------------------------
def qa_script(split: Split) -> LectureScript:
    """One slide per topic in a seeded order; the topic's slide-only line added last."""
    rng = random.Random(split.seed)
    order = list(range(len(split.topics)))
    rng.shuffle(order)
    slides = []
    for i in order:
        title, bullets, narration = split.topics[i]
        shown = split.qa[title].slide[0]
        slides.append(Slide(title, [*bullets, shown], list(narration),
                            min_seconds=rng.uniform(25.0, 45.0)))
    return LectureScript(split.title, slides, split.seed)


def synthesizer_for(voice: str):
    """The `SpeechSynthesizer` a split's ``voice`` names (``family:voice``)."""
    family, _, name = voice.partition(":")
    if family == "espeak":
        from memory.models.tts import EspeakSynthesizer

        return EspeakSynthesizer(voice=name)
    if family == "piper":
        from memory.models.voices import PiperSynthesizer

        return PiperSynthesizer(voice=name)
    if family == "flite":
        from memory.models.voices import FliteSynthesizer

        return FliteSynthesizer(voice=name)
    raise ValueError(f"unknown voice family {family!r} in {voice!r}; use espeak:, piper: "
                     f"or flite:<voice>")


def build_lecture(split: Split, out_dir: str | Path, progress: bool = False,
                  synthesizer=None) -> tuple[Path, dict]:
    """Render the split's lecture into ``out_dir`` (reused when already there)."""
    import json

    from memory.samples.lecture import render_lecture

    out = Path(out_dir)
    plan = {"split": split.name, "seed": split.seed, "voice": split.voice, "version": 1}
    truth_path, video = out / "lecture.json", out / "lecture.mp4"
    if truth_path.is_file() and video.is_file() and \
            json.loads(truth_path.read_text()).get("plan") == plan:
        return video, json.loads(truth_path.read_text())
    files = render_lecture(qa_script(split), out, extra={"plan": plan}, progress=progress,
                           tts=synthesizer or synthesizer_for(split.voice))
    return files.video, files.truth


# -- the questions ------------------------------------------------------------------------
def questions(split: Split, truth: dict) -> list[QAQuestion]:
    """Every question of the split, with times taken from the rendered ``truth``."""
    rng = random.Random(split.seed + 1)
    slides = truth["slides"]
    said = truth["sentences"]
    out: list[QAQuestion] = []
    for n, slide in enumerate(slides):
        title = slide["title"]
        qa = split.qa[title]
        span = (float(slide["start"]), float(slide["end"]))
        spoken_span = _sentence_span(said, n, qa.spoken[1], span)
        out += [QAQuestion("spoken", qa.spoken[0], None, qa.spoken[1], spoken_span, None, title),
                QAQuestion("slide", qa.slide[1], None, qa.slide[2], span, None, title),
                QAQuestion("content", qa.content[0], None, qa.content[1], span, None, title)]
        mine = [s for s in said if s["slide"] == n]
        sentence = rng.choice(mine)
        t = sentence["start"] + 0.4 * (sentence["end"] - sentence["start"])
        out.append(QAQuestion("time_said", f"What was said at {format_time(t)}?", None,
                              (sentence["text"],), (sentence["start"], sentence["end"]),
                              float(round(t)), title))
        t = rng.uniform(span[0] + 2.0, span[1] - 2.0)
        out.append(QAQuestion("time_slide", f"What was on the slide at {format_time(t)}?",
                              None, (title,), span, float(round(t)), title))
        if n >= len(slides) // 2:
            before = span[0] - 2.0
            out += [QAQuestion("future", qa.spoken[0], before, qa.spoken[1], spoken_span,
                               None, title),
                    QAQuestion("future", qa.slide[1], before, qa.slide[2], span, None, title)]
    out += [QAQuestion("off_topic", q) for q in split.off_topic]
    return out


def _sentence_span(said: list[dict], slide: int, accept: tuple[str, ...],
                   fallback: tuple[float, float]) -> tuple[float, float]:
    """The span of the slide's sentence that holds the spoken fact."""
    mine = [s for s in said if s["slide"] == slide]
    hit = next((s for s in mine if contains(s["text"], accept)), None)
    if hit is None:
        raise ValueError(f"no sentence of slide {slide} says any of {accept}")
    return (hit["start"], hit["end"]) if mine else fallback


# -- scoring -----------------------------------------------------------------------------
_SPELLING = ((re.compile(r"(?<=[a-z])tre(s?)\b"), r"ter\1"),
             (re.compile(r"(?<=[a-z]{2})our(s?)\b"), r"or\1"),
             (re.compile(r"(?<=[a-z]{2})is(e|ed|es|ing|ation)\b"), r"iz\1"))


def normalize(text: str) -> list[str]:
    """Words as a reader compares them: lower case, numbers as words ("340" and "three
    hundred and forty" alike), hyphens split, British and American spellings folded."""
    words = [w for w in normalize_words(text) if w != "and"]
    out = []
    for w in words:
        for pattern, repl in _SPELLING:
            w = pattern.sub(repl, w)
        out.append(w)
    return out


def contains(text: str, phrases: Sequence[str]) -> bool:
    """Does ``text`` hold one of ``phrases`` as a run of words (after `normalize`)?"""
    words = normalize(text)
    for phrase in phrases:
        want = normalize(phrase)
        if want and any(words[i:i + len(want)] == want for i in range(len(words))):
            return True
    return False


def _half_of(text: str, sentence: str) -> bool:
    """time_said: the reply holds at least half the sentence's longer words."""
    want = {w for w in normalize(sentence) if len(w) >= 4}
    got = set(normalize(text))
    return bool(want) and len(want & got) >= 0.5 * len(want)


def score(q: QAQuestion, reply: Any, hits: Sequence[Any] | None, ms: float) -> QAResult:
    """One `QAResult` from an `Answer` (and, for fact questions, the top-5 search)."""
    text = reply.text
    held = _half_of(text, q.accept[0]) if q.kind == "time_said" else contains(text, q.accept)
    anchored = None
    if q.kind in TIMED:
        first = reply.citations[0] if reply.citations else None
        anchored = bool(reply.found and first is not None and
                        first.start - 1e-6 <= q.anchor <= first.end + 1e-6)
    recalled = None
    if hits is not None and q.span is not None:
        lo, hi = q.span
        recalled = any(m.start < hi and m.end > lo for m in hits)
    return QAResult(q, reply.asked_at, bool(reply.found), text,
                    float(reply.extras.get("score", 0.0)), held, anchored, recalled, ms,
                    dict(reply.extras), moment=_holds_moment(q, reply))


def _holds_moment(q: QAQuestion, reply: Any) -> bool | None:
    """Fact kinds: does the reply's first citation overlap where the fact is (the sentence
    that says a spoken fact, the slide that shows a slide or content fact)? A reader who
    clicks it hears or sees the fact, also when its words were misheard."""
    if q.kind not in FACTS or q.span is None:
        return None
    first = reply.citations[0] if reply.citations else None
    lo, hi = q.span
    return bool(first is not None and first.start < hi and first.end > lo)


def ask_all(memory: Any, qs: Sequence[QAQuestion], clock: Callable[[], float] | None = None,
            k: int = 5) -> list[QAResult]:
    """Ask every question on ``memory`` at its time; fact questions also get a top-5 search."""
    import time

    clock = clock or time.perf_counter
    end = memory.duration
    held: list[str] | None = None
    out = []
    for q in qs:
        at = end if q.ask_at is None else q.ask_at
        t0 = clock()
        reply = memory.answer(q.question, at=at)
        ms = 1000.0 * (clock() - t0)
        fact = q.kind in FACTS
        hits = memory.search(q.question, k=k, before=at) if fact else None
        result = score(q, reply, hits, ms)
        if fact and q.ask_at is None:
            if held is None:  # everything heard and read, once
                held = [u.text for u in memory.evidence(0.0, end)]
            result.heard = any(contains(text, q.accept) for text in held)
        out.append(result)
    return out


def _decide(r: QAResult, threshold: float | None) -> bool:
    """Would the reply count as found at ``threshold`` (None: as answered)?"""
    if threshold is None or r.question.kind in TIMED or r.extras.get("anchored_answer"):
        return r.found
    return r.score >= threshold


def summarize(results: Sequence[QAResult], threshold: float | None = None) -> dict[str, Any]:
    """The BENCHMARKS.md keys (``key_accuracy`` and ``moment_accuracy`` per kind,
    ``abstention_accuracy``, ``false_abstention``, ``time_anchor_accuracy``,
    ``answer_chars_p50``, ``recall_at_5``, ``key_accuracy_heard``), at the replies' own
    decisions or re-decided at ``threshold``."""
    import numpy as np

    def found(r):
        return _decide(r, threshold)

    keys: dict[str, float] = {}
    for kind in ANSWERABLE:
        rs = [r for r in results if r.question.kind == kind]
        if rs:
            keys[kind] = sum(found(r) and r.contains for r in rs) / len(rs)
    facts = {kind: [r for r in results if r.question.kind == kind] for kind in FACTS}
    abstain = [r for r in results if not r.question.answerable]
    answerable = [r for r in results if r.question.answerable]
    timed = [r for r in results if r.question.kind in TIMED]
    recalled = [r.recalled for r in results if r.recalled is not None]
    missed = [r for r in results if r.question.kind in FACTS and r.heard is not None
              and not (found(r) and r.contains)]
    return {
        "key_accuracy": keys,
        "abstention_accuracy": _mean([not found(r) for r in abstain]),
        "abstention_by_kind": {kind: _mean([not found(r) for r in abstain
                                            if r.question.kind == kind])
                               for kind in ("off_topic", "future")},
        "false_abstention": _mean([not found(r) for r in answerable]),
        "time_anchor_accuracy": _mean([bool(r.anchored) for r in timed]),
        "answer_chars_p50": float(np.median([len(r.text) if found(r) or threshold is None
                                             else len(NOT_SEEN) for r in results]))
        if results else float("nan"),
        "recall_at_5": _mean(recalled),
        # why fact keys were missed: the answer was never heard or read (no sentence or
        # line in memory holds an accepted phrase), or it was and another was quoted
        "missed_unheard": {kind: sum(not r.heard for r in missed if r.question.kind == kind)
                           for kind in FACTS},
        "missed_heard": {kind: sum(bool(r.heard) for r in missed if r.question.kind == kind)
                         for kind in FACTS},
        # the first citation holds the fact's moment (a click plays it), heard right or not
        "moment_accuracy": {kind: _mean([found(r) and bool(r.moment) for r in rs])
                            for kind, rs in facts.items() if rs},
        # key accuracy on the facts the memory holds in words (misheard ones left out)
        "key_accuracy_heard": {kind: _mean([found(r) and r.contains for r in rs if r.heard])
                               for kind, rs in facts.items() if rs},
        "n": {kind: sum(r.question.kind == kind for r in results) for kind in KINDS},
    }


def _mean(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def calibrate(results: Sequence[QAResult], target_false: float = 0.05,
              target_abstention: float = 0.95) -> tuple[float, list[dict[str, float]]]:
    """The abstention threshold on the lead-evidence score, and the trade-off table.

    Candidates are the midpoints between observed scores of questions decided by the
    threshold (time-anchored replies are not). Among those that meet both targets
    (false abstention at most ``target_false``, abstention accuracy at least
    ``target_abstention``) the chosen one sits in the widest gap between observed
    scores: the largest ``margin`` to the nearest question on either side, so that a
    score moved a little by another voice or another wording stays on its side. Where
    none meets them, the one maximising abstention accuracy + (1 - false abstention)
    among those with false abstention at most ``target_false`` (else among all); ties go
    to the lower threshold (fewer abstentions).
    """
    pool = [r for r in results if not (r.question.kind in TIMED or
                                       r.extras.get("anchored_answer"))]
    scores = sorted({round(r.score, 6) for r in pool})
    if scores:
        cuts = [(scores[0] - 1e-3, 1e-3)] + \
            [((a + b) / 2, (b - a) / 2) for a, b in zip(scores, scores[1:])] + \
            [(scores[-1] + 1e-3, 1e-3)]
    else:
        cuts = [(0.0, 0.0)]
    table = []
    for cut, margin in cuts:
        s = summarize(results, cut)
        abstained = [r for r in pool if r.score < cut]
        right = sum(not r.question.answerable for r in abstained)
        table.append({"threshold": cut, "abstention_accuracy": s["abstention_accuracy"],
                      "false_abstention": s["false_abstention"],
                      "abstain_precision": right / len(abstained) if abstained else 1.0,
                      "margin": margin})

    def goal(row):
        return row["abstention_accuracy"] + 1.0 - row["false_abstention"]

    ok = [row for row in table if row["false_abstention"] <= target_false
          and row["abstention_accuracy"] >= target_abstention]
    if ok:
        best = max(ok, key=lambda row: (round(row["margin"], 9), -row["threshold"]))
    else:
        ok = [row for row in table if row["false_abstention"] <= target_false] or table
        best = max(ok, key=lambda row: (round(goal(row), 9), -row["threshold"]))
    return float(best["threshold"]), table
