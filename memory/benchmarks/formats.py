"""Loaders for published streaming/long-video QA annotation files, as causal `Probe`s.

Each benchmark's own JSON layout is read into one type: a `Probe` is a question about a
video asked at a media time (``ask_at``; None = at the end), with options and the
expected answer. Formats (as published by their authors):

- StreamingBench: a list of ``{"video_path", "questions": [{"task_type", "question",
  "time_stamp": "HH:MM:SS", "options": ["A. ...", ...], "answer": "B"}]}``.
- OVO-Bench: a list (or ``{"backward": [...], "realtime": [...], "forward": [...]}``) of
  ``{"id", "video", "task", "question", "options", "realtime", "gt"}``; forward tasks
  (REC, SSR, CRR) instead carry ``test_info: [{"realtime", "count" | "type", "step"?}]``.
- MLVU: a list of ``{"video", "question", "candidates", "answer" (the text),
  "question_type", "duration"?}``, asked after the whole video.
- V-NIAH (LongVA): a list of ``{"path" (needle image), "prompt", "answer"}``; the needle
  is inserted into a haystack at chosen depths (see `vniah_probes`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.errors import MemoryToolkitError

__all__ = ["OVO_SPLITS", "Probe", "load_mlvu", "load_ovobench", "load_streamingbench",
           "load_vniah", "vniah_probes"]

OVO_SPLITS = {"backward": ("EPM", "ASI", "HLD"),
              "realtime": ("STU", "OJR", "ATR", "ACR", "OCR", "FPD"),
              "forward": ("REC", "SSR", "CRR")}


class AnnotationError(MemoryToolkitError, ValueError):
    """An annotation file does not have the layout of the benchmark it was loaded as."""


@dataclass(frozen=True)
class Probe:
    """One question on the causal timeline: asked at ``ask_at`` seconds (None: at the
    end of the video), answered by ``answer`` (an option letter, a number, Yes/No or a
    short text). ``evidence`` is the span holding the answer, when the format says."""

    benchmark: str
    id: str
    video: str
    question: str
    answer: str
    ask_at: float | None = None
    options: tuple[str, ...] = ()
    task: str = ""
    split: str = ""
    evidence: tuple[float, float] | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def prompt(self) -> str:
        """The question with lettered options, as the benchmarks pose it."""
        if not self.options:
            return self.question
        letters = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(self.options))
        return f"{self.question}\n{letters}"


def _read(path: str | Path, name: str) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AnnotationError(f"cannot read the {name} annotation file {path} ({exc}); pass "
                              f"the JSON file from the benchmark's release") from exc


def _need(item: dict, keys: tuple[str, ...], name: str, path) -> None:
    missing = [k for k in keys if k not in item]
    if missing:
        raise AnnotationError(f"{path} is not a {name} file: an entry lacks {missing}; "
                              f"check that you loaded it with the right loader")


def clock(text: str) -> float:
    """'00:01:52' or '1:52' -> 112.0."""
    total = 0.0
    for part in str(text).strip().split(":"):
        total = total * 60 + float(part)
    return total


_LETTER = re.compile(r"^\s*\(?([A-Z])[.)]\s*")


def _strip_letter(option: str) -> str:
    return _LETTER.sub("", option, count=1).strip()


def load_streamingbench(path: str | Path) -> list[Probe]:
    data = _read(path, "StreamingBench")
    probes = []
    for v, video in enumerate(data):
        _need(video, ("video_path", "questions"), "StreamingBench", path)
        for q, item in enumerate(video["questions"]):
            _need(item, ("question", "time_stamp", "answer"), "StreamingBench", path)
            probes.append(Probe(
                "streamingbench", f"{v}-{q}", video["video_path"], item["question"],
                str(item["answer"]).strip(), clock(item["time_stamp"]),
                tuple(_strip_letter(o) for o in item.get("options", [])),
                item.get("task_type", ""), item.get("required_ability", "")))
    return probes


def load_ovobench(path: str | Path) -> list[Probe]:
    data = _read(path, "OVO-Bench")
    items = [x for split in OVO_SPLITS for x in data.get(split, [])] \
        if isinstance(data, dict) else data
    probes: list[Probe] = []
    for item in items:
        _need(item, ("id", "video", "task"), "OVO-Bench", path)
        split = next((s for s, tasks in OVO_SPLITS.items() if item["task"] in tasks), "")
        if split == "forward":
            probes += _ovo_forward(item, path)
            continue
        _need(item, ("question", "options", "realtime", "gt"), "OVO-Bench", path)
        probes.append(Probe("ovobench", str(item["id"]), item["video"], item["question"],
                            chr(65 + int(item["gt"])), float(item["realtime"]),
                            tuple(item["options"]), item["task"], split))
    return probes


def _ovo_forward(item: dict, path) -> list[Probe]:
    _need(item, ("test_info",), "OVO-Bench", path)
    out = []
    for i, info in enumerate(item["test_info"]):
        task = item["task"]
        if task == "REC":
            question = f"How many times did they {item.get('activity', 'do it')}?"
            answer = str(info["count"])
        elif task == "SSR":
            question = f"Is the person now performing this step: {info.get('step', '')}?"
            answer = "Yes" if int(info["type"]) == 1 else "No"
        else:
            question = f"{item.get('question', '')} Is there enough information to answer now?"
            answer = "Yes" if int(info["type"]) == 1 else "No"
        out.append(Probe("ovobench", f"{item['id']}-{i}", item["video"], question, answer,
                         float(info["realtime"]), (), task, "forward"))
    return out


def load_mlvu(path: str | Path) -> list[Probe]:
    data = _read(path, "MLVU")
    probes = []
    for n, item in enumerate(data):
        _need(item, ("video", "question", "candidates", "answer"), "MLVU", path)
        candidates = tuple(item["candidates"])
        if item["answer"] not in candidates:
            raise AnnotationError(f"{path}: entry {n} has an answer that is not one of its "
                                  f"candidates; the file is damaged")
        letter = chr(65 + candidates.index(item["answer"]))
        ask = item.get("duration")
        probes.append(Probe("mlvu", str(n), item["video"], item["question"], letter,
                            None if ask is None else float(ask), candidates,
                            item.get("question_type", ""), "offline"))
    return probes


def load_vniah(path: str | Path) -> list[dict[str, str]]:
    """Needles: ``{"image": absolute path, "question": ..., "answer": ...}``."""
    data = _read(path, "V-NIAH")
    root = Path(path).parent
    needles = []
    for item in data:
        _need(item, ("path", "prompt", "answer"), "V-NIAH", path)
        image = Path(item["path"])
        if not image.is_absolute():
            image = root / "images" / image if (root / "images" / image).exists() \
                else root / image
        needles.append({"image": str(image), "question": item["prompt"].strip(),
                        "answer": str(item["answer"]).strip()})
    return needles


def vniah_probes(needles: list[dict[str, str]], video: str, duration: float,
                 depths: list[float], seconds: float = 2.0) -> list[Probe]:
    """One probe per needle and depth: the needle is shown for ``seconds`` starting at
    ``depth * duration``; asked at the end of the haystack."""
    probes = []
    for n, needle in enumerate(needles):
        for d in depths:
            start = min(max(0.0, d * duration), max(0.0, duration - seconds))
            probes.append(Probe("vniah", f"{n}@{d:g}", video, needle["question"],
                                needle["answer"], None, (), "needle", f"{d:g}",
                                (start, start + seconds), {"image": needle["image"]}))
    return probes
