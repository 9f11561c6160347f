"""V-NIAH, LongVA's visual needle in a haystack (Zhang et al., 2024), run and scored as its
authors publish it.

File read: ``vision_niah/needle_datasets/dataset.json`` of
github.com/EvolvingLMMs-Lab/LongVA: a list of ``{"path" (the needle image, in
``images/`` beside the file), "prompt" (the question, with lettered options in the text
for multiple-choice needles), "answer"}``. The haystack is a long video (the authors use
3000 frames of one); the needle image is inserted into it as one frame at each depth
(0, 0.2, ..., 1.0 of its length, ``--depth_interval 0.2``), one needle per haystack.

Scoring, as ``eval_vision_niah.py``: right only when the model's answer *is* the answer
(there, every greedy answer token equals the reference's; here the reply, stripped of
case, spaces and a final full stop, equals it; an option letter for lettered prompts).
The score per (frames, depth) cell is the mean over needles, and the headline is the
mean over cells ("Average Accuracy"). Files written: ``all_accuracies.json``
(``Num. Frame``, ``Frame Depth``, ``Score``) and ``avg_accuracy.txt``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory.benchmarks.formats import AnnotationError, Probe, read_json, require
from memory.benchmarks.protocol import ProbeResult

__all__ = ["DEPTHS", "correct", "expand", "load", "load_needles", "needle_probes", "score",
           "write"]

NAME = "vniah"
METRIC = "average_accuracy"
DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_OPTION = re.compile(r"^([A-Z])\.\s*(.+)$")


def load_needles(path: str | Path) -> list[dict[str, Any]]:
    """Needles: ``{"image": absolute path, "question", "answer", "options"}``."""
    data = read_json(path, "V-NIAH")
    if not isinstance(data, list):
        raise AnnotationError(f"{path} is not a V-NIAH needle file: expected a list")
    root = Path(path).parent
    needles = []
    for item in data:
        require(item, ("path", "prompt", "answer"), "V-NIAH", path)
        image = Path(item["path"])
        if not image.is_absolute():
            image = next((p for p in (root / "images" / image, root / image) if p.exists()),
                         root / "images" / image)
        if not image.exists():
            raise AnnotationError(f"the V-NIAH needle image {image} is missing; keep the "
                                  f"images/ folder beside {Path(path).name}")
        lines = [line.strip() for line in item["prompt"].strip().splitlines() if line.strip()]
        options = tuple(m.group(2) for m in map(_OPTION.match, lines) if m)
        question = " ".join(line for line in lines if not _OPTION.match(line)
                            and not line.startswith("Answer "))
        needles.append({"image": str(image), "question": question, "options": options,
                        "answer": str(item["answer"]).strip(), "prompt": item["prompt"]})
    return needles


def load(path: str | Path) -> list[Probe]:
    """The needles as probes without a haystack yet (`expand` places them)."""
    return [Probe(NAME, str(n), "", needle["question"], needle["answer"], None,
                  needle["options"], "needle", "", None, {"image": needle["image"],
                                                          "prompt": needle["prompt"]})
            for n, needle in enumerate(load_needles(path))]


def needle_probes(needles: Sequence[Probe], video: str, duration: float,
                  depths: Sequence[float] = DEPTHS, seconds: float = 1.0) -> list[Probe]:
    """One probe per needle and depth: the needle is shown for ``seconds`` (one frame at
    1 fps) starting at ``depth * duration``; asked at the end of the haystack."""
    out = []
    for needle in needles:
        for d in depths:
            start = min(max(0.0, d * duration), max(0.0, duration - seconds))
            out.append(Probe(NAME, f"{needle.id}@{d:g}", video, needle.question, needle.answer,
                             None, needle.options, "needle", f"{d:g}", (start, start + seconds),
                             {**needle.extras, "depth": d, "frames": int(duration)}))
    return out


def expand(probes: Sequence[Probe], videos: Path, duration_of) -> list[Probe]:
    """Place the needles into the haystack: the first video (by name) in ``videos``."""
    from memory.benchmarks.runner import video_files

    haystacks = video_files(videos)
    if not haystacks:
        raise AnnotationError(f"V-NIAH needs a haystack video in {videos}; put one long video "
                              f"there")
    return needle_probes(probes, str(haystacks[0]), duration_of(haystacks[0]))


def memory_key(probe: Probe) -> str:
    return probe.id  # one needle per haystack: a memory per (needle, depth)


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split()).rstrip(".")


def correct(probe: Probe, response: str) -> bool:
    return _norm(response) == _norm(probe.answer)


def score(results: Sequence[ProbeResult]) -> dict[str, Any]:
    cells: dict[tuple[int, float], list[bool]] = defaultdict(list)
    for r in results:
        cells[(r.probe.extras["frames"], r.probe.extras["depth"])].append(r.correct)
    per = {f"{frames}f@{depth:g}": sum(v) / len(v) for (frames, depth), v in sorted(cells.items())}
    avg = sum(per.values()) / len(per) if per else None
    return {"metric": METRIC, "score": avg, "per_task": per}


def write(results: Sequence[ProbeResult], annotations: str | Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    cells: dict[tuple[int, float], list[bool]] = defaultdict(list)
    for r in results:
        cells[(r.probe.extras["frames"], r.probe.extras["depth"])].append(r.correct)
    rows = [{"Num. Frame": frames, "Frame Depth": round(depth * 100, -1),
             "Score": sum(v) / len(v)} for (frames, depth), v in sorted(cells.items())]
    accuracies = out / "all_accuracies.json"
    accuracies.write_text(json.dumps(rows, indent=4))
    average = sum(r["Score"] for r in rows) / len(rows) if rows else float("nan")
    summary = out / "avg_accuracy.txt"
    summary.write_text(f"Average Accuracy: {average}\n")
    return [accuracies, summary]
