"""StreamingBench (Lin et al., 2024), read as its authors publish it, scored by their rule.

Files read (github.com/THUNLP-MT/StreamingBench ``src/data``, and the Hugging Face
release ``mjuicem/StreamingBench``):

- ``questions_real.json``, ``questions_omni.json``: a list of ``{"time", "video_path",
  "video_categories", "questions": [{"task_type", "question", "time_stamp": "HH:MM:SS",
  "options": ["A. ...", ...], "answer": "C", "required_ability"}]}``.
- ``questions_sqa.json``: a list of *lists* of such entries, one list per video, asked in
  order (each question may refer to the previous one); options carry no letters.
- ``questions_proactive.json``: the same entries, but each question has
  ``ground_truth_time_stamp`` and ``ground_truth_output`` instead of options/answer.
- The release CSVs (``Real_Time_Visual_Understanding.csv`` and the others): columns
  ``question_id`` ("<subset>_sample_<N>_<k>"), ``task_type``, ``question``, ``time_stamp``,
  ``answer``, ``options`` (a Python list literal), ``frames_required``,
  ``temporal_clue_type``; the proactive CSV has ``ground_truth_time_stamp`` and
  ``ground_truth_output``. Its video is ``sample_<N>/video.mp4``.

Scoring, as the authors' ``src/data/count.py``: a multiple-choice reply is right when its
first character is the answer letter; accuracy per ``task_type`` and over all questions
(the headline). Proactive: asked every second from ``time_stamp + 1`` up to the ground
truth + 4 s; right when the last turn lands within 2 s of ``ground_truth_time_stamp``
and contains ``ground_truth_output`` (``answer_accuracy``; ``time_accuracy`` beside it).
The result file is the annotation file with each question's reply added under the model's
name, which ``count.py --model realtime-venus`` reads.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory.benchmarks.formats import (
    AnnotationError,
    Probe,
    clock,
    read_json,
    require,
    strip_letter,
)
from memory.benchmarks.protocol import ProbeResult, found

__all__ = ["MODEL_NAME", "ask", "correct", "load", "score", "write"]

NAME = "streamingbench"
METRIC = "accuracy"
MODEL_NAME = "realtime-venus"  # the key the replies are written under (count.py --model)
PROACTIVE = "Proactive Output"
_TOLERANCE_S = 2.0   # count.py: -2 <= last_time - ground_truth_time <= 2
_POLL_AFTER_S = 4.0  # StreamingBenchProactive.py: poll until ground truth + 4 s


def load(path: str | Path) -> list[Probe]:
    """Every question of a StreamingBench JSON (real, omni, sqa, proactive) or CSV file."""
    if Path(path).suffix.lower() == ".csv":
        return _load_csv(path)
    data = read_json(path, "StreamingBench")
    if not isinstance(data, list):
        raise AnnotationError(f"{path} is not a StreamingBench file: it holds a "
                              f"{type(data).__name__}, not a list of videos")
    probes: list[Probe] = []
    counts: dict[str, int] = defaultdict(int)
    for v, entry in enumerate(data):
        sequence = entry if isinstance(entry, list) else [entry]  # sqa: one list per video
        for item in sequence:
            require(item, ("video_path", "questions"), "StreamingBench", path)
            for q in item["questions"]:
                require(q, ("question", "time_stamp"), "StreamingBench", path)
                stem = Path(item["video_path"]).stem
                counts[stem] += 1
                probes.append(_probe(q, item["video_path"], f"{stem}_{counts[stem]}",
                                     f"sqa-{v}" if isinstance(entry, list) else "", path))
    return probes


def _probe(q: dict, video: str, qid: str, group: str, path) -> Probe:
    proactive = "ground_truth_output" in q
    if not proactive and "answer" not in q:
        raise AnnotationError(f"{path} is not a StreamingBench file: question {qid} has neither "
                              f"'answer' nor 'ground_truth_output'")
    options = _options(q.get("options", []))
    extras = {k: q[k] for k in ("required_ability", "temporal_clue_type", "frames_required")
              if q.get(k)}
    if proactive:
        extras["ground_truth_time"] = clock(q["ground_truth_time_stamp"])
        extras["ground_truth_output"] = str(q["ground_truth_output"])
    answer = str(q["ground_truth_output"] if proactive else q["answer"]).strip()
    return Probe(NAME, qid, video, str(q["question"]), answer, clock(q["time_stamp"]), options,
                 str(q.get("task_type", "")), extras.get("required_ability", ""),
                 None, extras, group)


def _options(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):  # the CSV's Python list literal
        try:
            raw = ast.literal_eval(raw) if raw.strip() else []
        except (ValueError, SyntaxError):
            raw = []
    return tuple(strip_letter(o) for o in raw)


_CSV_ID = re.compile(r"^(?P<subset>.+)_sample_(?P<sample>\d+)_(?P<k>\d+)$")


def _load_csv(path: str | Path) -> list[Probe]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise AnnotationError(f"cannot read the StreamingBench CSV {path} ({exc}); pass a "
                              f"CSV from the release") from exc
    probes = []
    for row in rows:
        require(row, ("question_id", "task_type", "question", "time_stamp"), "StreamingBench CSV",
                path)
        match = _CSV_ID.match(row["question_id"])
        if not match:
            raise AnnotationError(f"{path}: question_id {row['question_id']!r} is not "
                                  f"'<subset>_sample_<N>_<k>' as in the release")
        q = {k: v for k, v in row.items() if v not in (None, "")}
        video = f"sample_{match['sample']}/video.mp4"
        group = f"sqa-{match['sample']}" if "Sequential" in match["subset"] else ""
        probes.append(_probe(q, video, row["question_id"], group, path))
    return probes


def correct(probe: Probe, response: str) -> bool:
    """count.py: the reply's first character equals the answer letter."""
    return bool(response) and response[0] == probe.answer


def ask(memory: Any, probe: Probe, k: int = 5) -> ProbeResult | None:
    """Proactive questions follow the authors' polling protocol; others the usual one."""
    if probe.task != PROACTIVE:
        return None
    return _proactive(memory, probe, k)


def _proactive(memory: Any, probe: Probe, k: int) -> ProbeResult:
    """Each second from ``time_stamp + 1``: is it time to output X? (yes when a moment of
    the last two seconds shows or says X); on yes, the question is answered then."""
    target = probe.extras["ground_truth_output"]
    gt = probe.extras["ground_truth_time"]
    history: list[dict[str, Any]] = []
    t, answered, reply = probe.ask_at + 1.0, False, None
    while t <= min(gt + _POLL_AFTER_S, memory.duration):
        started = time.perf_counter()
        hits = memory.search(target, k=k, before=t, start=t - _TOLERANCE_S, end=t)
        said = "yes" if any(_contains(m.text, target) for m in hits) else "no"
        query = f'{probe.question} Is it the right time to output "{target}"?'
        history += _turns(query, said, t, started)
        if said == "yes":
            started = time.perf_counter()
            reply = memory.answer(probe.question, at=t, k=k)
            history += _turns(probe.question, _output(reply, target), t, started)
            answered = t
            break
        t += 1.0
    last = history[-1] if history else {"time": probe.ask_at, "content": ""}
    ok = abs(last["time"] - gt) <= _TOLERANCE_S and target in last["content"]
    end = max((m.end for m in reply.citations), default=0.0) if reply else 0.0
    return ProbeResult(probe, float(last["time"]), last["content"], ok, end, None,
                       {"answered": answered, "dialog_history": history,
                        "time_correct": abs(last["time"] - gt) <= _TOLERANCE_S})


def _output(reply: Any, target: str) -> str:
    """The reply, leading with the asked-for output when the evidence holds it."""
    evidence = " ".join(m.text for m in reply.citations)
    return f"{target}. {reply.text}" if found(reply) and _contains(evidence, target) else reply.text


def _contains(text: str, target: str) -> bool:
    return " ".join(target.lower().split()) in " ".join(str(text).lower().split())


def _turns(query: str, response: str, t: float, started: float) -> list[dict[str, Any]]:
    cost = time.perf_counter() - started
    return [{"role": "user", "content": query, "time": t, "cost": cost},
            {"role": "assistant", "content": response, "time": t, "cost": cost}]


def score(results: Sequence[ProbeResult]) -> dict[str, Any]:
    """count.py's figures: accuracy per task type and over all (proactive: answer and time
    accuracy)."""
    per: dict[str, list[bool]] = defaultdict(list)
    timely: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        per[r.probe.task].append(r.correct)
        if r.probe.task == PROACTIVE:
            timely[r.probe.task].append(bool(r.extras.get("time_correct")))
    flat = [ok for values in per.values() for ok in values]
    metric = "answer_accuracy" if results and all(r.probe.task == PROACTIVE for r in results) \
        else METRIC
    out = {"metric": metric, "score": sum(flat) / len(flat) if flat else None,
           "per_task": {t: sum(v) / len(v) for t, v in sorted(per.items())}}
    if timely:
        out["time_accuracy"] = {t: sum(v) / len(v) for t, v in timely.items()}
    return out


def write(results: Sequence[ProbeResult], annotations: str | Path, out: Path) -> list[Path]:
    """The annotation file with each reply under ``MODEL_NAME`` (the authors' result file)."""
    by_id = {r.probe.id: r for r in results}
    src = Path(annotations)
    out.mkdir(parents=True, exist_ok=True)
    if src.suffix.lower() == ".csv":
        return [_write_csv(src, by_id, out)]
    data = json.loads(src.read_text(encoding="utf-8"))
    counts: dict[str, int] = defaultdict(int)
    for entry in data:
        for item in entry if isinstance(entry, list) else [entry]:
            stem = Path(item["video_path"]).stem
            for q in item["questions"]:
                counts[stem] += 1
                r = by_id.get(f"{stem}_{counts[stem]}")
                if r is not None:
                    q[MODEL_NAME] = _record(r)
    target = out / f"{src.stem}_output_{MODEL_NAME}.json"
    target.write_text(json.dumps(data, indent=4))
    return [target]


def _record(r: ProbeResult) -> Any:
    if r.probe.task == PROACTIVE:
        return {"answered": r.extras["answered"], "dialog_history": r.extras["dialog_history"]}
    return r.response


def _write_csv(src: Path, by_id: dict[str, ProbeResult], out: Path) -> Path:
    with open(src, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows, fields = list(reader), list(reader.fieldnames or [])
    target = out / f"{src.stem}_output_{MODEL_NAME}.csv"
    with open(target, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, [*fields, MODEL_NAME])
        writer.writeheader()
        for row in rows:
            r = by_id.get(row["question_id"])
            if r is not None:
                writer.writerow({**row, MODEL_NAME: json.dumps(_record(r)) if isinstance(
                    _record(r), dict) else r.response})
    return target
