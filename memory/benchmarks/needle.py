"""The needle-in-a-haystack benchmark for the video memory (data and scoring; no timing).

A haystack is the sample lecture with needles inserted at depths 0%..100%, of three
kinds: a sentence shown only as slide text, a sentence only spoken, and a text-free
visual scene. Each needle has a question. `score_needles` asks each question at the end
of the video (recall@1/@5, MRR: a hit is a moment overlapping the needle) and just
before the needle appears (leakage: any evidence from after the asking time, or the
needle's answer word in the reply). Timing and printing live in ``venus bench memory``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.samples import LectureScript, Slide, lecture_script, render_lecture

__all__ = ["KINDS", "Needle", "NeedleResult", "build_haystack", "score_needles", "summarize"]

KINDS = ("slide", "spoken", "visual")

_SLIDE = [
    ("The library password this week is marmalade.", "What is the library password this week?",
     "marmalade"),
    ("Field trip buses leave from parking lot nineteen.",
     "Which parking lot do the field trip buses leave from?", "nineteen"),
    ("The chess club meets every Thursday in the observatory.",
     "Where does the chess club meet?", "observatory"),
    ("Lab coats must be returned to Doctor Quimby by Friday.",
     "Who must the lab coats be returned to?", "quimby"),
    ("The campus cafe now sells rhubarb pies.", "What kind of pies does the campus cafe sell?",
     "rhubarb"),
    ("The spring concert will feature a glass harmonica.",
     "Which instrument will the spring concert feature?", "harmonica"),
]
_SPOKEN = [
    ("My grandmother kept twelve turtles in her garden in Oslo.",
     "How many turtles did the grandmother keep in her garden?", "turtles"),
    ("Last summer I climbed a volcano in Iceland with my cousin.",
     "What did the lecturer climb last summer with a cousin?", "iceland"),
    ("The best pizza I ever ate was in a tiny village near Naples.",
     "Where was the best pizza the lecturer ever ate?", "naples"),
    ("Our department cat is called Pickles and it loves sardines.",
     "What is the name of the department cat?", "pickles"),
    ("I once lost my umbrella on a ferry to Copenhagen.",
     "Where did the lecturer lose an umbrella?", "copenhagen"),
    ("My neighbour builds wooden canoes in his garage every winter.",
     "What does the neighbour build in his garage?", "canoes"),
]
_VISUAL = {
    "sunset": "When was the picture of a sunset shown?",
    "ocean": "When was the picture of the ocean waves shown?",
    "forest": "When was the picture of a forest with trees shown?",
    "checkerboard": "When was the checkerboard pattern shown?",
    "night-sky": "When was the picture of the night sky with stars shown?",
}


@dataclass
class Needle:
    """One inserted fact: where it is (filled in after rendering) and how it is asked."""

    kind: str
    depth: float
    text: str
    question: str
    keyword: str
    start: float = 0.0
    end: float = 0.0


@dataclass
class NeedleResult:
    needle: Needle
    rank: int | None           # 1-based rank of the first hit in the top k, None if missed
    leaked: bool | None        # None when the needle comes too early to ask before it
    latencies_ms: list[float] = field(default_factory=list)


def _plan(depths: list[float], seed: int) -> list[Needle]:
    rng = random.Random(seed)
    slides, spoken = rng.sample(_SLIDE, len(depths)), rng.sample(_SPOKEN, len(depths))
    scenes = rng.sample(sorted(_VISUAL), len(depths))
    needles = []
    for d, sl, sp, sc in zip(depths, slides, spoken, scenes):
        needles += [Needle("slide", d, *sl), Needle("spoken", d, *sp),
                    Needle("visual", d, sc, _VISUAL[sc], sc)]
    return needles


def insert_needles(script: LectureScript, needles: list[Needle]) -> LectureScript:
    """A copy of ``script`` with each needle inserted at its depth (by slide position).

    Spoken needles go into the narration of an ordinary slide; slide and scene needles
    are new slides (the notice first, then the scene), so kinds never share a slide.
    """
    slides = [Slide(s.title, list(s.bullets), list(s.narration), s.scene, s.min_seconds)
              for s in script.slides]
    n = len(slides)
    for needle in (x for x in needles if x.kind == "spoken"):
        target = slides[min(int(round(needle.depth * n)), n - 1)]
        at = {0.0: 0, 1.0: len(target.narration)}.get(needle.depth, len(target.narration) // 2)
        target.narration.insert(at, needle.text)
    inserts = [x for x in needles if x.kind != "spoken"]
    for needle in sorted(inserts, key=lambda x: (-x.depth, x.kind != "visual")):
        pos = min(n, int(round(needle.depth * n)))  # back to front keeps positions valid
        if needle.kind == "slide":
            slides.insert(pos, Slide("Notice", [needle.text],
                                     ["Please take a moment to read this notice."], None, 20.0))
        else:
            slides.insert(pos, Slide(scene=needle.text, narration=[], min_seconds=12.0))
    return LectureScript(script.title, slides, script.seed, script.voice, script.rate)


def build_haystack(minutes: float, out_dir: str | Path, depths: list[float] | None = None,
                   seed: int = 0, progress: bool = False) -> tuple[Path, list[Needle], dict]:
    """Render the haystack lecture; return its video path, the needles (with times) and
    the ground truth. Reuses a rendering already in ``out_dir`` with the same plan."""
    import json

    depths = depths if depths is not None else [0.0, 0.25, 0.5, 0.75, 1.0]
    needles = _plan(depths, seed)
    out = Path(out_dir)
    plan = {"minutes": minutes, "seed": seed, "depths": depths, "needles": len(needles)}
    truth_path, video = out / "lecture.json", out / "lecture.mp4"
    if truth_path.is_file() and video.is_file() and \
            json.loads(truth_path.read_text()).get("plan") == plan:
        truth = json.loads(truth_path.read_text())
    else:
        script = insert_needles(lecture_script(minutes, seed), needles)
        truth = render_lecture(script, out, extra={"plan": plan}, progress=progress).truth
    _locate(needles, truth)
    return video, needles, truth


def _locate(needles: list[Needle], truth: dict) -> None:
    """Fill in each needle's time span; drop leakage keywords that the rest of the
    lecture also contains (a scene name like "ocean" is said in ordinary narration)."""
    everything = " ".join([s["text"] for s in truth["sentences"]] + [
        " ".join([s.get("title", "")] + s.get("bullets", [])) for s in truth["slides"]]).lower()
    for needle in needles:
        if needle.kind == "visual" or everything.count(needle.keyword.lower()) > 1:
            needle.keyword = ""
        if needle.kind == "spoken":
            span = next(s for s in truth["sentences"] if s["text"] == needle.text)
        elif needle.kind == "slide":
            span = next(s for s in truth["slides"] if needle.text in s.get("bullets", []))
        else:
            span = next(s for s in truth["slides"] if s.get("scene") == needle.text)
        needle.start, needle.end = float(span["start"]), float(span["end"])


def _hit(moment, needle: Needle) -> bool:
    return moment.start < needle.end and moment.end > needle.start


def score_needles(memory: Any, needles: list[Needle], k: int = 5, clock=None,
                  before_gap: float = 2.0) -> list[NeedleResult]:
    """Ask every needle's question at the end and just before it appears."""
    import time

    clock = clock or time.perf_counter
    end = memory.duration
    results = []
    for needle in needles:
        t0 = clock()
        hits = memory.search(needle.question, k=k, before=end)
        latencies = [1000.0 * (clock() - t0)]
        rank = next((i + 1 for i, m in enumerate(hits) if _hit(m, needle)), None)
        leaked = None
        asked = needle.start - before_gap
        if asked > 1.0:
            t0 = clock()
            early = memory.search(needle.question, k=k, before=asked)
            latencies.append(1000.0 * (clock() - t0))
            reply = memory.answer(needle.question, at=asked)
            evidence = list(early) + list(reply.citations) + \
                ([reply.recent] if reply.recent else [])
            leaked = any(m.end > asked + 1e-6 for m in evidence) or \
                bool(needle.keyword) and needle.keyword.lower() in reply.text.lower()
        results.append(NeedleResult(needle, rank, leaked, latencies))
    return results


def summarize(results: list[NeedleResult]) -> dict[str, Any]:
    """recall@1/@5 per kind and depth, their minimum over text needles, MRR, leakage."""
    def table(cut: int) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for r in results:
            cell = out.setdefault(r.needle.kind, {})
            key = f"{r.needle.depth:g}"
            cell[key] = float(r.rank is not None and r.rank <= cut)
        return out

    at1, at5 = table(1), table(5)
    text_kinds = [v for kind in ("slide", "spoken") for v in at5.get(kind, {}).values()]
    return {
        "recall_at_1": at1,
        "recall_at_5": at5,
        "recall_at_5_min": min(text_kinds) if text_kinds else float("nan"),
        "mrr": {kind: sum(1.0 / r.rank for r in results if r.needle.kind == kind and r.rank)
                / max(1, sum(r.needle.kind == kind for r in results)) for kind in KINDS},
        "leakage": sum(bool(r.leaked) for r in results),
        "leakage_checked": sum(r.leaked is not None for r in results),
    }
