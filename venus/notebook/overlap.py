"""Overlap scenarios for teaching: one question, an answer, one overlap while it plays.

Behaviour layer of `venus.notebook`, on `venus.scenario` and the seeded scenarios of
`venus bench frontend` (the same voices, phrasings and timings, so what a notebook shows
is what the benchmark measures). `overlap_scenario` makes one scenario with the overlap's
loudness as a knob; `overlap_outcome` says what the assistant did about it.
"""

from __future__ import annotations

import html
import random
from collections.abc import Sequence
from dataclasses import dataclass

from venus.bench.frontend import KINDS, scenario_doc
from venus.events import OverlapClassified, SpeechQueued, SpeechStopped
from venus.scenario import Scenario, ScenarioRun, parse_scenario

__all__ = ["OVERLAP_KINDS", "OverlapOutcome", "outcomes_html", "overlap_outcome",
           "overlap_scenario"]

OVERLAP_KINDS: tuple[str, ...] = tuple(KINDS)
"""interruption, backchannel, other_directed, background (the FDB v1.5 subsets)."""

RIGHT_ACTION = {"interruption": "yield the floor and answer", "backchannel": "keep speaking",
                "other_directed": "keep speaking", "background": "keep speaking"}


def overlap_scenario(kind: str, gain_db: float | None = None, seed: int = 0) -> Scenario:
    """The seeded scenario for ``kind``; ``gain_db`` sets the overlap's level relative to
    the user's voice (None: the benchmark's own, -15..-25 dB for background speech)."""
    if kind not in OVERLAP_KINDS:
        raise ValueError(f"unknown overlap kind {kind!r}; choose one of {', '.join(OVERLAP_KINDS)}")
    doc = scenario_doc(kind, random.Random(seed), f"{kind}-seed{seed}")
    if gain_db is not None:
        doc["turns"][-1]["gain_db"] = float(gain_db)
    return parse_scenario(doc)


@dataclass(frozen=True)
class OverlapOutcome:
    """What happened to one overlap: how it was classified and what the assistant did."""

    kind: str
    classified: tuple[str, ...]
    stopped: bool
    answered: bool
    stop_latency_s: float | None
    right_action: str

    @property
    def correct(self) -> bool:
        """Interruption: stopped and answered; any other kind: kept speaking."""
        if self.kind == "interruption":
            return self.stopped and self.answered
        return not self.stopped


def overlap_outcome(run: ScenarioRun) -> OverlapOutcome:
    """Read ``run``'s timeline: classification, stop, answer, stop latency (the overlap's
    first sample to 0.2 s of silence in the output, as the benchmark measures it)."""
    overlap = run.turns[-1]
    kind = overlap.turn.label or "unknown"
    stops = [e for e in run.timeline.events(SpeechStopped) if e.reason != "session ended"]
    latency = None
    if stops:
        silent = run.silent_after(overlap.start)
        latency = None if silent is None else round(float(silent - overlap.start), 3)
    return OverlapOutcome(
        kind=kind,
        classified=tuple(e.kind.value for e in run.timeline.events(OverlapClassified)),
        stopped=bool(stops),
        answered=len(run.timeline.events(SpeechQueued)) >= 2,
        stop_latency_s=latency,
        right_action=RIGHT_ACTION.get(kind, "?"),
    )


def outcomes_html(outcomes: Sequence[OverlapOutcome]) -> str:
    """A table of outcomes: kind, what it was heard as, what was done, whether that was right."""
    head = ("<tr><th>overlap</th><th>heard as</th><th>stopped</th><th>answered</th>"
            "<th>stop latency</th><th>right action</th><th></th></tr>")
    rows = []
    for o in outcomes:
        latency = "-" if o.stop_latency_s is None else f"{o.stop_latency_s:.2f} s"
        mark = "<b style='color:#2e7d32'>right</b>" if o.correct else \
            "<b style='color:#c62828'>wrong</b>"
        cells = [o.kind, ", ".join(o.classified) or "-", "yes" if o.stopped else "no",
                 "yes" if o.answered else "no", latency, o.right_action]
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells)
                    + f"<td>{mark}</td></tr>")
    return f"<table>{head}{''.join(rows)}</table>"
