"""The one type every published benchmark is read into, and the helpers its loaders share.

A `Probe` is a question about a video asked at a media time (``ask_at``; None = at the
end of the video), with options and the expected answer, under the benchmark's own id.
The loaders, one module per benchmark, read the authors' annotation files as published
(`memory.benchmarks.streamingbench`, ``ovobench``, ``mlvu``, ``vnbench``, ``vniah``); each
module also scores by the authors' own rule and writes their result/submission files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.errors import MemoryToolkitError

__all__ = ["AnnotationError", "Probe", "clock", "leading_letter", "read_json", "require",
           "strip_letter"]


class AnnotationError(MemoryToolkitError, ValueError):
    """An annotation file does not have the layout of the benchmark it was loaded as."""


@dataclass(frozen=True)
class Probe:
    """One question on the causal timeline: asked at ``ask_at`` seconds (None: at the
    end of the video), answered by ``answer`` (an option letter, a number, Yes/No or a
    short text; empty when the file has no answers, as in a test set). ``id`` is the
    benchmark's own question id; ``group`` ties probes scored together (VNBench's tries,
    a StreamingBench SQA sequence); ``evidence`` is the span holding the answer, when the
    format says; ``extras`` keeps the format's other fields."""

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
    group: str = ""

    def prompt(self) -> str:
        """The question with lettered options, as the benchmarks pose it."""
        if not self.options:
            return self.question
        letters = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(self.options))
        return f"{self.question}\n{letters}"


def read_json(path: str | Path, name: str) -> Any:
    """A JSON file, or a JSON-lines file (one object per line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AnnotationError(f"cannot read the {name} annotation file {path} ({exc}); pass "
                              f"the file from the benchmark's release") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        error = exc
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()] or _none()
    except (json.JSONDecodeError, ValueError):
        raise AnnotationError(f"cannot read the {name} annotation file {path} ({error}); "
                              f"pass the JSON file from the benchmark's release") from error


def _none():
    raise ValueError("empty file")


def require(item: Any, keys: tuple[str, ...], name: str, path) -> None:
    """Every entry of a format has these keys, or the file is not that format."""
    if not isinstance(item, dict):
        raise AnnotationError(f"{path} is not a {name} file: an entry is a "
                              f"{type(item).__name__}, not an object; check that you loaded "
                              f"it with the right loader")
    missing = [k for k in keys if k not in item]
    if missing:
        raise AnnotationError(f"{path} is not a {name} file: an entry lacks {missing}; "
                              f"check that you loaded it with the right loader")


def clock(text: str | float) -> float:
    """'00:01:52', '1:52' or 112 -> 112.0."""
    total = 0.0
    for part in str(text).strip().split(":"):
        total = total * 60 + float(part)
    return total


_LETTER = re.compile(r"^\s*\(?([A-Z])[.)]\s*")


def strip_letter(option: str) -> str:
    """'B. A map.' -> 'A map.' (options that carry their own letter)."""
    return _LETTER.sub("", str(option), count=1).strip()


def leading_letter(text: str) -> str | None:
    """The option letter a reply starts with ('B', '(B) ...', 'B. ...'), if any."""
    match = re.match(r"^\s*\(?([A-Z])\b[).:]?", text or "")
    return match.group(1) if match else None
