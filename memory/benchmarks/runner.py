"""Run a published benchmark over a folder of videos, causally, and score it officially.

`DATASETS` names each supported format (a module with ``load``, ``correct``, ``score``,
``write`` and optional hooks); `run_dataset` loads the annotations, finds every video
first (a missing one is one clear error before any work), builds one `VideoMemory` per
video (V-NIAH: per needle and depth, with the needle inserted), asks each question at
its own time with the store's causal cutoff, then writes the authors' result files and
returns the official figures.
"""

from __future__ import annotations

import importlib
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from memory.benchmarks.formats import Probe
from memory.benchmarks.protocol import ProbeResult, ask
from memory.errors import VideoNotFoundError

__all__ = ["DATASETS", "DatasetRun", "dataset_format", "run_dataset", "video_files"]

DATASETS = {
    "streamingbench": "memory.benchmarks.streamingbench",
    "ovobench": "memory.benchmarks.ovobench",
    "mlvu": "memory.benchmarks.mlvu",
    "vnbench": "memory.benchmarks.vnbench",
    "vniah": "memory.benchmarks.vniah",
}
VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov", ".webm", ".mpg", ".mpeg")


@dataclass
class DatasetRun:
    """What `run_dataset` did: the results, the official figures, the files written."""

    dataset: str
    results: list[ProbeResult]
    figures: dict[str, Any]
    files: list[Path] = field(default_factory=list)
    leakage: int = 0  # replies citing anything after their question's time (must be 0)


def dataset_format(name: str) -> ModuleType:
    from memory.benchmarks.formats import AnnotationError

    if name not in DATASETS:
        raise AnnotationError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    return importlib.import_module(DATASETS[name])


def video_files(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in VIDEO_SUFFIXES)


class _Videos:
    """Finds an annotation's video path under ``root`` (as written, or by file name)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_name: dict[str, list[Path]] | None = None

    def find(self, video: str) -> Path | None:
        given = Path(video)
        for candidate in (given, self.root / given, self.root / given.name):
            if candidate.is_file():
                return candidate
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for p in video_files(self.root):
                self._by_name[p.name].append(p)
        hits = self._by_name.get(given.name, [])
        tail = [p for p in hits if p.as_posix().endswith(given.as_posix().lstrip("./"))]
        matches = tail or hits
        if len(matches) > 1:
            from memory.benchmarks.formats import AnnotationError

            raise AnnotationError(
                f"{video} matches {len(matches)} files under {self.root} ({matches[0]}, "
                f"{matches[1]}, ...); pass the folder of this subset's videos as --videos")
        return matches[0] if matches else None


def select(probes: Sequence[Probe], limit: int | None) -> list[Probe]:
    """The first ``limit`` probes, completed so no group (VNBench's tries, an SQA
    sequence, an OVO forward item) is cut in half."""
    if limit is None or limit >= len(probes):
        return list(probes)
    head = list(probes[:max(0, limit)])
    groups = {p.group for p in head if p.group}
    return head + [p for p in probes[len(head):] if p.group and p.group in groups]


def run_dataset(name: str, annotations: str | Path, videos: str | Path,
                out: str | Path | None = None, limit: int | None = None, k: int = 5,
                progress: bool = False, memory_factory: Callable[[Path], Any] | None = None,
                ) -> DatasetRun:
    """Run dataset ``name`` (a key of `DATASETS`) end to end; see the module docstring."""
    from tqdm.auto import tqdm

    fmt = dataset_format(name)
    root = Path(videos)
    if not root.is_dir():
        raise VideoNotFoundError(f"no video folder at {root}; pass --videos DIR holding the "
                                 f"benchmark's videos")
    probes = fmt.load(annotations)
    if hasattr(fmt, "expand"):
        probes = fmt.expand(probes, root, _duration)
    probes = select(probes, limit)
    paths = _resolve(probes, root)
    key = getattr(fmt, "memory_key", lambda p: p.video)
    by_memory: dict[str, list[Probe]] = defaultdict(list)
    for p in probes:
        by_memory[key(p)].append(p)
    results: dict[int, ProbeResult] = {}
    order = {id(p): i for i, p in enumerate(probes)}
    bar = tqdm(total=len(probes), disable=not progress, unit="q", desc=name)
    with tempfile.TemporaryDirectory(prefix="venus-dataset-") as tmp:
        for n, group in enumerate(by_memory.values()):
            directory = Path(tmp) / f"m{n}"
            memory = _build(group, paths[group[0].video], directory, memory_factory)
            try:
                for p in sorted(group, key=lambda p: p.ask_at or 0.0):
                    results[order[id(p)]] = _ask(fmt, memory, p, k)
                    bar.update(1)
            finally:
                memory.close()
                shutil.rmtree(directory, ignore_errors=True)
    bar.close()
    ordered = [results[i] for i in range(len(probes))]
    figures = fmt.score(ordered)
    files = fmt.write(ordered, annotations, Path(out)) if out is not None else []
    leakage = sum(r.evidence_end > r.asked_at + 1e-6 for r in ordered)
    return DatasetRun(name, ordered, figures, files, leakage)


def _resolve(probes: Sequence[Probe], root: Path) -> dict[str, Path]:
    finder, paths, missing = _Videos(root), {}, []
    for video in dict.fromkeys(p.video for p in probes):
        found = finder.find(video)
        if found is None:
            missing.append(video)
        else:
            paths[video] = found
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise VideoNotFoundError(f"{len(missing)} video(s) named in the annotations are not under "
                                 f"{root}: {', '.join(missing[:3])}{more}; pass --videos DIR "
                                 f"holding the benchmark's videos")
    return paths


def _duration(path: Path) -> float:
    from memory.video import open_video

    with open_video(path) as source:
        return float(source.info.duration)


def _build(group: Sequence[Probe], path: Path, directory: Path, factory) -> Any:
    from memory.store import VideoMemory

    memory = factory(directory) if factory else VideoMemory.create(directory)
    needles = [p for p in group if "image" in p.extras and p.evidence]
    if needles:
        from memory.benchmarks.protocol import with_needles
        from memory.video import open_video

        with open_video(path) as source:
            memory.ingest(with_needles(source, needles))
    else:
        memory.ingest(path)
    return memory


def _ask(fmt: ModuleType, memory: Any, probe: Probe, k: int) -> ProbeResult:
    special = getattr(fmt, "ask", None)
    result = special(memory, probe, k) if special else None
    return result if result is not None else ask(memory, probe, k, fmt.correct)
