"""What a reply cites, read from the shapes the memory and the capabilities return.

Below the chat view (no Gradio). `Cited` is one cited stretch (start, end, optional key
frame and quote); `ResultView` is a finished work item laid out whole: a title and its
items (every quiz question with its answer, every summary sentence, every search hit),
each with its time. `answer_citations` reads a `memory.Answer`; `result_view` reads a
`venus.events.WorkResult` by capability. Both read fields by name and accept the
older and newer shapes alike (``Answer.evidence``, per-sentence summary times), so
the page renders whichever the installed memory returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from demos.labels import work_label

__all__ = ["Cited", "ResultItem", "ResultView", "answer_citations", "result_view"]


@dataclass(frozen=True)
class Cited:
    start: float
    end: float
    keyframe: str | None = None
    text: str = ""


@dataclass(frozen=True)
class ResultItem:
    text: str
    start: float | None = None
    answer: str = ""  # a quiz question's answer, revealed on demand
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResultView:
    title: str
    items: tuple[ResultItem, ...] = ()
    note: str = ""  # what the item said when it has no structure (a timer, a failure)
    cited: tuple[Cited, ...] = field(default_factory=tuple)


def answer_citations(answer: Any) -> tuple[Cited, ...]:
    """The lead evidence first (with the key frame of the moment holding it), then the
    other cited moments; one entry per distinct start second. None for an abstention:
    its citations are the moments that were searched and rejected, and chips beside "I
    haven't seen anything about that" would read as the answer's sources."""
    if getattr(answer, "found", True) is False:
        return ()
    moments = list(getattr(answer, "citations", ()) or ())
    out: list[Cited] = []
    for unit in getattr(answer, "evidence", ()) or ():
        # the moment holding its start, else one it overlaps (a slide line is timed from
        # when it came on screen, often before the moment it was found in)
        frame = next((m.keyframe for m in moments if m.start <= unit.start < m.end), None) \
            or next((m.keyframe for m in moments if m.start < unit.end and unit.start < m.end),
                    None)
        out.append(Cited(float(unit.start), float(unit.end), frame, str(unit.text)))
    for m in moments:
        out.append(Cited(float(m.start), float(m.end), m.keyframe,
                         str(m.text or m.transcript or m.ocr_text)))
    return _distinct(out)


def result_view(capability: str, arguments: Mapping[str, Any], result: Any,
                media_end: float | None = None) -> ResultView:
    """A finished work item laid out whole (``result`` is a `WorkResult`)."""
    title = work_label(capability, arguments, media_end)
    data = getattr(result, "data", None)
    sources = _citations(getattr(result, "citations", ()) or ())
    cited = _distinct(sources)
    if not getattr(result, "ok", False) or not isinstance(data, Mapping):
        return ResultView(title, note=str(getattr(result, "summary", "")), cited=cited)
    items: tuple[ResultItem, ...] = ()
    if capability == "make_quiz":
        items = tuple(_question(q) for q in data.get("questions", ()) or ())
    elif capability == "summarize_range":
        items = _sentences(data, sources)
    elif capability == "search_memory":
        items = tuple(ResultItem(str(h.get("text") or h.get("transcript") or ""),
                                 _float(h.get("start"))) for h in data.get("hits", ()) or ())
    note = "" if items else str(getattr(result, "summary", ""))
    return ResultView(title, items, note, cited)


def _question(q: Mapping[str, Any]) -> ResultItem:
    return ResultItem(str(q.get("question", "")), _float(q.get("time", q.get("start"))),
                      str(q.get("answer", "")), tuple(str(o) for o in q.get("options", ()) or ()))


def _sentences(data: Mapping[str, Any], cited: Sequence[Cited]) -> tuple[ResultItem, ...]:
    out = []
    for i, s in enumerate(data.get("sentences", ()) or ()):
        if isinstance(s, Mapping):  # newer shape: each sentence with its time
            out.append(ResultItem(str(s.get("text", "")), _float(s.get("start", s.get("time")))))
        else:  # older shape: the i-th citation is the i-th sentence's source
            out.append(ResultItem(str(s), cited[i].start if i < len(cited) else None))
    return tuple(out)


def _citations(citations: Sequence[Any]) -> list[Cited]:
    out = []
    for c in citations:
        get = c.get if isinstance(c, Mapping) else lambda k, c=c: getattr(c, k, None)
        out.append(Cited(float(get("start") or 0.0), float(get("end") or 0.0), get("keyframe")))
    return out


def _distinct(cited: list[Cited]) -> tuple[Cited, ...]:
    seen: set[int] = set()
    out = []
    for c in cited:
        if int(c.start) not in seen:
            seen.add(int(c.start))
            out.append(c)
    return tuple(out)


def _float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None
