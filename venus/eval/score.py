"""Offline scoring of FDB-format folders: what a listener hears, a decision-log proxy, TOR.

Scoring layer of `venus.eval` (above `fdb`, `timing` and `listener`). FDB's official
v1.5 behaviour labels come from a GPT-4o judge reading ASR transcripts; ours are offline,
and **the headline is the strict listener rule** (`venus.eval.listener`, from
``output.wav`` against ``clean_output.wav``): interruption response rate = share of
samples that stop within 1.5 s and speak again within 3 s of the overlap's end, with
something other than the old answer (the first 3 s of words heard again, in
``output.json``, are not all words of ``clean_output.json``: `only_old_answer`);
continuation rate = share of the testable samples with no output silence over 0.8 s
in the RESUME window.

The **decision-log proxy** stays beside it, labelled as such (it reads what the system
recorded, so it cannot hear a silence; it can tell a reply from a continuation):

* ``RESPOND``: after the overlap onset the output was stopped (a ``SpeechStopped`` that
  is not the end of the session) and a new utterance was queued and played after it;
* ``RESUME``: nothing was stopped or newly queued, and every word spoken after the onset
  belongs to what it had already queued before the onset;
* ``STOP``: stopped and said nothing new; ``OTHER``: anything else (e.g. it kept going
  but also replied to the overlap).

Turn-over (TOR, FDB v1 rule: the words after the overlap/turn end form a turn if they
span >= 1 s or number more than 3) and its latency come from ``output.json``; stop and
response latency, and the longest silence, from what a listener hears.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory.media import SAMPLE_RATE
from venus.eval.fdb import (
    OVERLAP_SUBSETS,
    TranscriptWord,
    read_meta,
    read_transcript,
    read_wav,
    sample_dirs,
)
from venus.eval.listener import STOP_WITHIN_S, hear
from venus.eval.timing import heard_regions

__all__ = ["HEADLINE", "PUBLISHED", "SUBSET_COLUMNS", "SampleScore", "by_family", "clarified", "interruption_misses", "judge_proxy",
           "only_old_answer", "paper_table", "paper_table_by_family", "score_folder", "score_root", "subset_figures",
           "subset_table", "turn_over"]

REPLY_WINDOW_S = 3.0  # the words of a reply that RESPOND reads (see `only_old_answer`)
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
    """One sample's verdicts: strict (``resume`` / ``respond``, what a listener hears; None
    where not testable) and the decision-log ``proxy`` label."""

    subset: str
    name: str
    proxy: str
    resume: bool | None
    respond: bool | None
    longest_silence: float | None
    took_turn: bool
    turn_latency: float | None
    stop_latency: float | None
    response_latency: float | None
    overlap_text: str
    voice_family: str = "espeak"
    clarified: bool = False  # its first new words after the onset were `embedded.CLARIFY`
    overlap_s: float | None = None  # how long the overlap lasted (onset to end)


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


def clarified(timeline_path: Path, onset: float) -> bool:
    """Whether the first thing the system queued after ``onset`` was its "Sorry, I didn't
    catch that" (`venus.frontend.embedded.CLARIFY`): a reply that asks the user to say it
    again. RESPOND counts it (a listener hears the floor yielded and a reply to them);
    the figures count it apart, so a headline is not read as answered questions."""
    from venus.frontend.embedded import CLARIFY

    for line in timeline_path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["time"] >= onset and entry["type"] == "SpeechQueued":
            return entry["event"]["text"] == CLARIFY
    return False


def only_old_answer(words: list[TranscriptWord], clean: list[TranscriptWord], start: float,
                    window_s: float = REPLY_WINDOW_S) -> bool:
    """Whether the output's words in [``start``, ``start + window_s``) are all words of
    the answer it gave without the overlap (``clean``): it went back to its old answer
    instead of replying to the interruption (a reader of ``output.json`` sees no reply)."""
    said = [t for w in words if start - 0.05 <= w.start < start + window_s for t in _norm(w.text).split()]
    old = {t for w in clean for t in _norm(w.text).split()}
    return bool(said) and all(t in old for t in said)


def _norm(text: str) -> str:
    return re.sub(r"[^\w\s:']", " ", text.lower())


def score_folder(folder: Path, subset: str) -> SampleScore:
    meta = read_meta(folder)
    words = read_transcript(folder / "output.json")
    onset, end = meta.timestamps
    family = meta.venus.get("overlap_family", "espeak")
    if subset in OVERLAP_SUBSETS:
        label = judge_proxy(folder / "timeline.jsonl", onset, words)
        output = read_wav(folder / "output.wav")
        h = hear(heard_regions(output), heard_regions(read_wav(folder / "clean_output.wav")),
                 len(output) / SAMPLE_RATE, onset, end)
        took, lat = turn_over(words, end)
        respond = h.respond
        if respond and h.response_latency is not None:  # heard again: a reply, or the old answer?
            clean = folder / "clean_output.json"
            respond = not only_old_answer(words, read_transcript(clean) if clean.is_file() else [],
                                          end + h.response_latency)
        return SampleScore(subset, folder.name, label, h.resume, respond, h.longest_silence_s,
                           took, lat, h.stop_latency, h.response_latency, meta.current_turn_text,
                           family, clarified(folder / "timeline.jsonl", onset),
                           round(end - onset, 3))
    if subset == "pause_handling":  # taking the turn inside the pause is the error
        took, lat = turn_over(words, onset, meta.venus.get("turn_end", end))
    else:
        took, lat = turn_over(words, end)
    return SampleScore(subset, folder.name, "-", None, None, None, took, lat, None, None,
                       meta.current_turn_text, family)


def score_root(root: Path, subsets=OVERLAP_SUBSETS) -> dict[str, list[SampleScore]]:
    """Scores of every folder that has been run (folders without ``output.json`` are
    skipped: an interrupted run can still be scored)."""
    return {s: [score_folder(f, s) for f in sample_dirs(Path(root), s)
                if (f / "output.json").is_file() and (f / "timeline.jsonl").is_file()]
            for s in subsets}


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def _p50(values) -> float | None:
    return _pct([v for v in values if v is not None], 50)


def _share(flags) -> float | None:
    flags = [f for f in flags if f is not None]
    return round(sum(flags) / len(flags), 3) if flags else None


def subset_figures(scores: list[SampleScore]) -> dict:
    """A subset's figures: strict ``respond`` / ``resume`` (over the testable samples),
    the ``proxy`` label shares, TOR, the longest silence and the latencies."""
    n = len(scores)
    proxy = {k.lower(): (round(sum(s.proxy == k for s in scores) / n, 3) if n else None)
             for k in ("RESPOND", "RESUME", "STOP", "OTHER")}
    silences = [s.longest_silence for s in scores if s.longest_silence is not None]
    return {"n": n, "testable": sum(s.resume is not None for s in scores),
            "respond": _share(s.respond for s in scores),
            "resume": _share(s.resume for s in scores),
            "proxy": proxy,
            "tor": round(sum(s.took_turn for s in scores) / n, 3) if n else None,
            "max_silence_s": round(max(silences), 3) if silences else None,
            "silence_s_p50": _pct(silences, 50),
            "never_spoke_after": sum(s.response_latency is None for s in scores),
            "clarified": sum(s.clarified for s in scores),
            "turn_latency_s_p50": _p50(s.turn_latency for s in scores),
            "stop_latency_s_p50": _p50(s.stop_latency for s in scores),
            "stop_latency_s_p95": _pct([s.stop_latency for s in scores if s.stop_latency is not None], 95),
            "response_latency_s_p50": _p50(s.response_latency for s in scores)}


def interruption_misses(scores: list[SampleScore]) -> dict[str, int]:
    """How the interruptions the strict rule failed went wrong, as a listener heard them:
    ``talked_through`` (the output was still speaking when the user finished: it spoke
    over all of it), ``stopped_late`` (it stopped while the user spoke, but more than
    `STOP_WITHIN_S` after the onset), ``stopped_unanswered`` (it stopped in time, then never
    spoke again) and ``answered_late_or_old`` (it stopped in time and spoke again, too
    late or with the answer it had been giving)."""
    out = dict.fromkeys(("talked_through", "stopped_late", "stopped_unanswered",
                         "answered_late_or_old"), 0)
    for s in scores:
        if s.respond is not False:
            continue
        stop = s.stop_latency
        if stop is not None and s.overlap_s is not None and stop >= s.overlap_s:
            out["talked_through"] += 1
        elif stop is not None and stop > STOP_WITHIN_S:
            out["stopped_late"] += 1
        elif s.response_latency is None:
            out["stopped_unanswered"] += 1
        else:
            out["answered_late_or_old"] += 1
    return out


HEADLINE = {"user_interruption": "respond", "user_backchannel": "resume",
            "talking_to_other": "resume", "background_speech": "resume"}


def paper_table(figures: dict[str, dict], name: str = "venus embedded") -> tuple[list[str], list[list[object]]]:
    """The paper's layout: interruption response, then continuation per overlap kind; our
    strict (listener) row first, the decision-log proxy row under it, then the paper's."""
    header = ["system (offline: strict = what a listener hears in output.wav)",
              "interruption respond", "backchannel continue", "other-directed continue",
              "background continue"]
    strict = [figures.get(s, {}).get(k) for s, k in HEADLINE.items()]
    proxy = [figures.get(s, {}).get("proxy", {}).get(k) for s, k in HEADLINE.items()]
    rows = [[f"{name}, strict (output.wav)", *[_cell(v) for v in strict]],
            [f"{name}, proxy (decision log)", *[_cell(v) for v in proxy]]]
    rows += [[name, *[_cell(v) for v in vals]] for name, vals in PUBLISHED.items()]
    return header, rows


def by_family(scores: dict[str, list[SampleScore]]) -> dict[str, dict[str, dict]]:
    """`subset_figures` per voice family (of the voice in the overlap) and subset."""
    families = sorted({s.voice_family for v in scores.values() for s in v})
    return {fam: {subset: subset_figures([s for s in v if s.voice_family == fam])
                  for subset, v in scores.items()} for fam in families}


def paper_table_by_family(scores: dict[str, list[SampleScore]]) -> tuple[list[str], list[list[object]]]:
    """`paper_table`, with the strict and proxy rows of each voice family under ours when
    the samples speak in more than one."""
    header, rows = paper_table({s: subset_figures(v) for s, v in scores.items()})
    families = by_family(scores)
    if len(families) > 1:
        rows[2:2] = [r for fam, fper in families.items()
                     for r in paper_table(fper, name=f"  voice {fam}")[1][:2]]
    return header, rows


SUBSET_COLUMNS = ["subset", "n", "strict", "proxy", "TOR", "longest silence s",
                  "stop p50 s", "response p50 s", "never spoke after", "'didn't catch that'"]


def subset_table(figures: dict[str, dict]) -> list[list[object]]:
    """One row per subset: the strict rate beside the proxy, TOR, silences and latencies
    (columns `SUBSET_COLUMNS`)."""
    rows = []
    for subset, f in figures.items():
        key = HEADLINE.get(subset)
        n = f"{f['n']} ({f['testable']} testable)" if key == "resume" else f["n"]
        rows.append([subset, n,
                     _cell(f.get(key)) if key else "-",
                     _cell(f.get("proxy", {}).get(key)) if key else "-",
                     _cell(f["tor"]), _cell(f.get("max_silence_s")),
                     _cell(f.get("stop_latency_s_p50")), _cell(f.get("response_latency_s_p50")),
                     f.get("never_spoke_after", "-"), f.get("clarified", "-")])
    return rows


def _cell(v) -> str:
    return "-" if v is None else f"{v:.2f}"
