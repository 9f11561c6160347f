"""Offline scoring of FDB-format folders: turn-over, latencies and a judge-label proxy.

Scoring layer of `venus.eval` (above `fdb` and `timing`). FDB's official v1.5 behaviour
labels come from a GPT-4o judge reading ASR transcripts; here they come from what the
system itself recorded, so the figures are an **offline proxy, not the official judge**:

* ``RESPOND``: after the overlap onset the output was stopped (a ``SpeechStopped`` that
  is not the end of the session) and a new utterance was queued and played after it:
  the assistant yielded and answered the overlap;
* ``RESUME``: nothing was stopped or newly queued, and every word spoken after the onset
  belongs to what it had already queued before the onset: it carried on;
* ``STOP``: stopped and said nothing new; ``OTHER``: anything else (e.g. it kept going
  but also replied to the overlap).

Interruption response rate = share of RESPOND on ``user_interruption``; continuation
rate = share of RESUME on the other three subsets (the paper's table). Turn-over (TOR,
FDB v1 rule: the words after the overlap/turn end form a turn if they span >= 1 s or
number more than 3) and its latency come from ``output.json``; stop/response latency
from VAD (`venus.eval.timing`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from venus.eval.fdb import (
    OVERLAP_SUBSETS,
    TranscriptWord,
    read_meta,
    read_transcript,
    read_wav,
    sample_dirs,
)
from venus.eval.timing import MODEL_GAP_S, USER_GAP_S, overlap_timing, vad_regions

__all__ = ["PUBLISHED", "SampleScore", "judge_proxy", "paper_table", "score_folder",
           "score_root", "subset_figures", "turn_over"]

TURN_MIN_S = 1.0
TURN_MIN_WORDS = 3
# (interruption response, continuation backchannel, other-directed, background)
PUBLISHED = {
    "Realtime-Venus (paper)": (0.75, 0.97, 0.88, 0.86),
    "GPT-4o (paper)": (0.78, None, None, None),
    "Gemini Live (paper)": (0.77, None, None, None),
}


@dataclass(frozen=True)
class SampleScore:
    subset: str
    name: str
    label: str
    took_turn: bool
    turn_latency: float | None
    stop_latency: float | None
    response_latency: float | None
    overlap_text: str


def turn_over(words: list[TranscriptWord], after: float, before: float | None = None) -> tuple[bool, float | None]:
    """FDB v1's rule on the words starting in [after, before): a turn if they span >= 1 s
    or number more than 3; its latency is the first word's start minus ``after`` (>= 0)."""
    ws = [w for w in words if w.start >= after and (before is None or w.start < before)]
    if not ws:
        return False, None
    took = (ws[-1].end - ws[0].start) >= TURN_MIN_S or len(ws) > TURN_MIN_WORDS
    return took, (round(max(0.0, ws[0].start - after), 3) if took else None)


def judge_proxy(timeline_path: Path, onset: float, words: list[TranscriptWord]) -> str:
    """RESPOND / RESUME / STOP / OTHER from the decision log and the output text."""
    stopped, queued, said_before = False, False, set()
    for line in timeline_path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        kind, ev = entry["type"], entry["event"]
        if entry["time"] < onset:
            if kind == "SpeechQueued":
                said_before.update(_norm(ev["text"]).split())
            continue
        if kind == "SpeechStopped" and ev.get("reason") != "session ended":
            stopped = True
        elif kind == "SpeechQueued":
            queued = True
    later = [t for w in words if w.start >= onset for t in _norm(w.text).split()]
    if stopped:
        return "RESPOND" if queued and later else "STOP"
    # carried on: every word after the onset belongs to what it was already saying
    same_answer = all(t in said_before for t in later)
    return "RESUME" if same_answer and not queued else "OTHER"


def _norm(text: str) -> str:
    return re.sub(r"[^\w\s:']", " ", text.lower())


def score_folder(folder: Path, subset: str) -> SampleScore:
    meta = read_meta(folder)
    words = read_transcript(folder / "output.json")
    onset, end = meta.timestamps
    if subset in OVERLAP_SUBSETS:
        label = judge_proxy(folder / "timeline.jsonl", onset, words)
        t = overlap_timing(vad_regions(read_wav(folder / "input.wav"), USER_GAP_S),
                           vad_regions(read_wav(folder / "output.wav"), MODEL_GAP_S), onset, end)
        took, lat = turn_over(words, t.overlap[1])
        return SampleScore(subset, folder.name, label, took, lat, t.stop_latency,
                           t.response_latency, meta.current_turn_text)
    if subset == "pause_handling":  # taking the turn inside the pause is the error
        took, lat = turn_over(words, onset, meta.venus.get("turn_end", end))
    else:
        took, lat = turn_over(words, end)
    return SampleScore(subset, folder.name, "-", took, lat, None, None, meta.current_turn_text)


def score_root(root: Path, subsets=OVERLAP_SUBSETS) -> dict[str, list[SampleScore]]:
    """Scores of every folder that has been run (folders without ``output.json`` are
    skipped: an interrupted run can still be scored)."""
    return {s: [score_folder(f, s) for f in sample_dirs(Path(root), s)
                if (f / "output.json").is_file() and (f / "timeline.jsonl").is_file()]
            for s in subsets}


def _p50(values) -> float | None:
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    import numpy as np

    return round(float(np.percentile(vals, 50)), 3)


def subset_figures(scores: list[SampleScore]) -> dict[str, float | int | None]:
    n = len(scores)
    share = (lambda label: round(sum(s.label == label for s in scores) / n, 3)) if n else (lambda _: None)
    return {"n": n, "respond": share("RESPOND"), "resume": share("RESUME"),
            "stop": share("STOP"), "other": share("OTHER"),
            "tor": round(sum(s.took_turn for s in scores) / n, 3) if n else None,
            "turn_latency_s_p50": _p50(s.turn_latency for s in scores),
            "stop_latency_s_p50": _p50(s.stop_latency for s in scores),
            "response_latency_s_p50": _p50(s.response_latency for s in scores)}


def paper_table(figures: dict[str, dict]) -> tuple[list[str], list[list[object]]]:
    """The paper's layout: interruption response, then continuation per overlap kind."""
    header = ["system (offline proxy, not the official judge)", "interruption respond",
              "backchannel continue", "other-directed continue", "background continue"]
    ours = [figures.get("user_interruption", {}).get("respond"),
            figures.get("user_backchannel", {}).get("resume"),
            figures.get("talking_to_other", {}).get("resume"),
            figures.get("background_speech", {}).get("resume")]
    rows = [["venus embedded (this run, proxy)", *[_cell(v) for v in ours]]]
    rows += [[name, *[_cell(v) for v in vals]] for name, vals in PUBLISHED.items()]
    return header, rows


def _cell(v) -> str:
    return "-" if v is None else f"{v:.2f}"
