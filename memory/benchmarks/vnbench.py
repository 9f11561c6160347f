"""VNBench, the benchmark of VideoNIAH (Zhao et al., ICLR 2025), read and scored as its
authors publish it.

File read: the VNBench annotation file of the Hugging Face release ``Joez1717/VNBench``
(JSON or JSON lines), as ``llava_examples/model_video_niah.py`` of
github.com/joez17/VideoNIAH reads it: ``{"video", "question", "options" (4 texts),
"gt" (the right option's text), "type" (e.g. ``ret_insert1``, ``ord_edit2``,
``cnt_level1``), "try" (0-3: the same question with its options shuffled)}``;
``question_id`` is used when present, else ``<video stem>_<try>``.

Scoring, as ``evaluation/eval.py``: a reply's letter is the first of A-D it contains;
a video's question counts as right only when all four tries are right; accuracy per
``type`` and their mean ("Overall"). The result file is the JSON-lines layout of
``evaluation/example_result.jsonl`` (``question_id``, ``pred``, ``gt``, ``type``, ``try``,
``prompt``), which ``eval.py --path`` reads.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory.benchmarks.formats import AnnotationError, Probe, read_json, require
from memory.benchmarks.protocol import ProbeResult

__all__ = ["TRIES", "correct", "load", "score", "write"]

NAME = "vnbench"
METRIC = "overall"
TRIES = 4  # eval.py: a question is right only when `ac == 4`
_SUFFIX = "\nAnswer with the option's letter from the given choices directly."


def load(path: str | Path) -> list[Probe]:
    data = read_json(path, "VNBench")
    if not isinstance(data, list):
        raise AnnotationError(f"{path} is not a VNBench file: expected a list of questions")
    probes = []
    for item in data:
        require(item, ("video", "question", "options", "gt", "type", "try"), "VNBench", path)
        options = tuple(str(o) for o in item["options"])
        if str(item["gt"]) not in options:
            raise AnnotationError(f"{path}: the answer of {item['video']} (try {item['try']}) "
                                  f"is not one of its options; the file is damaged")
        qid = str(item.get("question_id") or f"{Path(item['video']).stem}_{item['try']}")
        probes.append(Probe(NAME, qid, item["video"], item["question"],
                            chr(65 + options.index(str(item["gt"]))), None, options,
                            item["type"], item["type"].split("_")[0], None,
                            {"try": int(item["try"])}, qid[:-2]))
    return probes


def _letter(pred: str) -> str:
    pred = pred.split(".")[0]
    return next((c for c in "ABCD" if c in pred), pred)


def correct(probe: Probe, response: str) -> bool:
    return _letter(response) == probe.answer


def score(results: Sequence[ProbeResult]) -> dict[str, Any]:
    tries: dict[tuple[str, str], int] = defaultdict(int)
    for r in results:
        tries[(r.probe.task, r.probe.group)] += int(r.correct)
    per: dict[str, list[bool]] = defaultdict(list)
    for (task, _group), right in tries.items():
        per[task].append(right == TRIES)
    per_task = {t: sum(v) / len(v) for t, v in sorted(per.items())}
    overall = sum(per_task.values()) / len(per_task) if per_task else None
    return {"metric": METRIC, "score": overall, "per_task": per_task}


def write(results: Sequence[ProbeResult], annotations: str | Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    target = out / "vnbench_result_realtime-venus.jsonl"
    lines = [json.dumps({"question_id": r.probe.id, "pred": r.response, "gt": r.probe.answer,
                         "type": r.probe.task, "try": r.probe.extras["try"],
                         "prompt": r.probe.prompt() + _SUFFIX}) for r in results]
    target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return [target]
