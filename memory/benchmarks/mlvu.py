"""MLVU (Zhou et al., 2024), read as its authors publish it, scored by their rule.

Files read (github.com/JUNJIE99/MLVU and the Hugging Face releases MLVU/MVLU, MLVU_Test):

- dev multiple choice, ``json/1_plotQA.json`` ... ``7_topic_reasoning.json``: a list of
  ``{"video", "duration", "question", "candidates", "answer" (the text),
  "question_type"}``;
- dev open-ended, ``8_sub_scene.json`` (with ``scoring_points``) and ``9_summary.json``:
  the same without ``candidates``;
- the test set, ``test_question.json`` style: ``{"question_id" ("AR_0"), "question_type",
  "video", "question", "candidates"}``, with or without ``answer``.

``--annotations`` may be one file or the folder holding them. Questions are asked after
the whole video (MLVU is an offline benchmark).

Scoring, as ``choice_bench.py``: the option letter must match; accuracy per task and
their mean (M-Avg). Files written: ``bench_all.json`` (the per-task accuracies and
``Avg``) for dev; ``test_res.json`` (``question_id``, ``question_type``, ``option``: the
file the authors' online evaluation takes) for the test set; ``subplot_all.json`` and
``summary_all.json`` (``video_name``, ``Q``, ``A``, ``pred``) for the open-ended tasks,
which the authors score with a GPT-4 judge (``evaluate_ssc.py``/``evaluate_summary.py``):
no offline figure exists for those, so none is printed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory.benchmarks.formats import AnnotationError, Probe, leading_letter, read_json, require
from memory.benchmarks.protocol import ProbeResult

__all__ = ["correct", "load", "score", "write"]

NAME = "mlvu"
METRIC = "m_avg"
_OPEN = {"subPlot": "subplot_all.json", "summary": "summary_all.json"}


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise AnnotationError(f"no MLVU annotation files (*.json) in {path}")
        return files
    return [path]


def load(path: str | Path) -> list[Probe]:
    probes: list[Probe] = []
    for f in _files(Path(path)):
        data = read_json(f, "MLVU")
        if not isinstance(data, list):
            raise AnnotationError(f"{f} is not an MLVU file: expected a list of questions")
        for n, item in enumerate(data):
            probes.append(_probe(item, f, n))
    return probes


def _probe(item: dict, path: Path, n: int) -> Probe:
    require(item, ("video", "question", "question_type"), "MLVU", path)
    qid = str(item.get("question_id", f"{path.stem}_{n}"))
    split = "test" if "question_id" in item else "dev"
    candidates = tuple(str(c) for c in item.get("candidates", ()))
    answer = item.get("answer")
    if candidates:
        letter = ""
        if answer is not None:
            if str(answer) not in candidates:
                raise AnnotationError(f"{path}: question {qid} has an answer that is not one of "
                                      f"its candidates; the file is damaged")
            letter = chr(65 + candidates.index(str(answer)))
        return Probe(NAME, qid, item["video"], item["question"], letter, None, candidates,
                     item["question_type"], split, None, {"duration": item.get("duration")})
    if answer is None and split == "dev":
        raise AnnotationError(f"{path} is not an MLVU file: question {qid} has neither "
                              f"candidates nor an answer")
    return Probe(NAME, qid, item["video"], item["question"], str(answer or ""), None, (),
                 item["question_type"], f"{split}-open", None,
                 {"scoring_points": item.get("scoring_points")})


def correct(probe: Probe, response: str) -> bool:
    """choice_bench.check_ans: the predicted option letter equals the answer's."""
    return bool(probe.options) and leading_letter(response) == probe.answer


def score(results: Sequence[ProbeResult]) -> dict[str, Any]:
    per: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        if r.probe.options and r.probe.answer:
            per[r.probe.task].append(r.correct)
    per_task = {t: sum(v) / len(v) for t, v in per.items()}
    m_avg = sum(per_task.values()) / len(per_task) if per_task else None
    out: dict[str, Any] = {"metric": METRIC, "score": m_avg, "per_task": per_task}
    unscored = sorted({r.probe.task for r in results if not (r.probe.options and r.probe.answer)})
    if unscored:
        out["not_scored_offline"] = unscored  # open-ended (GPT-4 judge) or test without answers
    return out


def write(results: Sequence[ProbeResult], annotations: str | Path, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    test = [r for r in results if r.probe.split == "test"]
    if test:
        written.append(_dump(out / "test_res.json", [
            {"question_id": r.probe.id, "question_type": r.probe.task,
             "option": r.response} for r in test]))
    for task, name in _OPEN.items():
        rows = [r for r in results if r.probe.task == task]
        if rows:
            written.append(_dump(out / name, [
                {"video_name": Path(r.probe.video).name, "Q": r.probe.question,
                 "A": r.probe.answer, "pred": r.response} for r in rows]))
    dev = score([r for r in results if r.probe.split == "dev"])
    if dev["per_task"]:
        final = {t: 100 * v for t, v in dev["per_task"].items()}
        final["Avg"] = 100 * dev["score"]
        written.append(_dump(out / "bench_all.json", final))
    return written


def _dump(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2))
    return path
