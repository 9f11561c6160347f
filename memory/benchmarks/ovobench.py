"""OVO-Bench (Li et al., CVPR 2025), read as its authors publish it, scored by their rule.

File read: ``data/ovo_bench_new.json`` of github.com/JoeLeelyf/OVO-Bench (also accepted:
the same items split as ``{"backward": [...], "realtime": [...], "forward": [...]}``).
Backward-tracing (EPM, ASI, HLD) and real-time (STU, OJR, ATR, ACR, OCR, FPD) items are
``{"id", "task", "video", "realtime", "question", "options", "gt" (option index)}``;
forward active-responding items (REC, SSR, CRR) carry ``test_info: [{"realtime",
"count" | "type", "step"?}]``, one query per entry, each asked at its own time (the online
protocol: nothing after ``realtime`` is seen).

Scoring, as ``utils/OVOBenchScore.py``: backward/real-time right when the answer letter
is in the reply; REC right when the reply's digits are the count; SSR/CRR right when the
reply contains Yes/No as ``type`` says (or is exactly Y/N). Accuracy per task, the mean
of the tasks per split, and the mean of the three splits ("Total Avg."). Results are
written as ``results/realtime-venus/realtime-venus_<tasks>_online.json`` in the authors'
result layout.
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

__all__ = ["SPLITS", "correct", "load", "score", "write"]

NAME = "ovobench"
METRIC = "total_avg"
MODEL_NAME = "realtime-venus"
SPLITS = {"backward": ("EPM", "ASI", "HLD"),
          "realtime": ("STU", "OJR", "ATR", "ACR", "OCR", "FPD"),
          "forward": ("REC", "SSR", "CRR")}


def _split(task: str) -> str:
    return next((s for s, tasks in SPLITS.items() if task in tasks), "")


def _items(data: Any, path) -> list[dict]:
    if isinstance(data, dict):
        return [x for split in SPLITS for x in data.get(split, [])]
    if isinstance(data, list):
        return data
    raise AnnotationError(f"{path} is not an OVO-Bench file: expected a list of items")


def load(path: str | Path) -> list[Probe]:
    probes: list[Probe] = []
    for item in _items(read_json(path, "OVO-Bench"), path):
        require(item, ("id", "video", "task"), "OVO-Bench", path)
        split = _split(item["task"])
        if not split:
            raise AnnotationError(f"{path}: item {item['id']} has task {item['task']!r}, not "
                                  f"one of OVO-Bench's {sum(SPLITS.values(), ())}")
        if split == "forward":
            probes += _forward(item, path)
            continue
        require(item, ("question", "options", "realtime", "gt"), "OVO-Bench", path)
        probes.append(Probe(NAME, str(item["id"]), item["video"], item["question"],
                            chr(65 + int(item["gt"])), float(item["realtime"]),
                            tuple(item["options"]), item["task"], split))
    return probes


def _forward(item: dict, path) -> list[Probe]:
    require(item, ("test_info",), "OVO-Bench", path)
    task, out = item["task"], []
    for i, info in enumerate(item["test_info"]):
        if task == "REC":
            question = f"How many times did they {item.get('activity', '')}?"
            answer = str(info["count"])
        elif task == "SSR":
            question = f"Is the person now performing this step: {info.get('step', '')}?"
            answer = "Yes" if int(info["type"]) == 1 else "No"
        else:
            question = (f"{item.get('question', '')} Do the latest frames give enough "
                        f"information to answer this question?")
            answer = "Yes" if int(info["type"]) == 1 else "No"
        out.append(Probe(NAME, f"{item['id']}_{i}", item["video"], question, answer,
                         float(info["realtime"]), (), task, "forward", None,
                         {"item": item["id"], "index": i}, str(item["id"])))
    return out


def correct(probe: Probe, response: str | None) -> bool:
    """OVOBenchScore's rules, per task."""
    if response is None:
        return False
    if probe.task == "REC":
        return "".join(re.findall(r"\d+", response)) == probe.answer
    if probe.task in ("SSR", "CRR"):
        return response == probe.answer[0] or probe.answer in response
    return probe.answer in response


def score(results: Sequence[ProbeResult]) -> dict[str, Any]:
    per: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        per[r.probe.task].append(r.correct)
    per_task = {t: sum(v) / len(v) for t, v in per.items()}
    splits = {s: [per_task[t] for t in tasks if t in per_task] for s, tasks in SPLITS.items()}
    split_avg = {s: sum(v) / len(v) for s, v in splits.items() if v}
    total = sum(split_avg.values()) / len(split_avg) if split_avg else None
    return {"metric": METRIC, "score": total, "per_task": dict(sorted(per_task.items())),
            "per_split": split_avg}


def write(results: Sequence[ProbeResult], annotations: str | Path, out: Path) -> list[Path]:
    by_id = {r.probe.id: r for r in results}
    doc: dict[str, list] = {"backward": [], "realtime": [], "forward": []}
    for item in _items(read_json(annotations, "OVO-Bench"), annotations):
        split = _split(item["task"])
        if split == "forward":
            infos = [dict(info, response=by_id[f"{item['id']}_{i}"].response)
                     for i, info in enumerate(item["test_info"]) if f"{item['id']}_{i}" in by_id]
            if infos:
                doc["forward"].append({**item, "test_info": infos})
        elif str(item["id"]) in by_id:
            doc[split].append({"id": item["id"], "video": item["video"], "task": item["task"],
                               "question": item["question"],
                               "response": by_id[str(item["id"])].response,
                               "ground_truth": chr(65 + int(item["gt"]))})
    tasks = sorted({r.probe.task for r in results})
    folder = out / "results" / MODEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{MODEL_NAME}_{'_'.join(tasks)}_online.json"
    target.write_text(json.dumps(doc, indent=4))
    return [target]
