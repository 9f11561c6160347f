"""Figures for the teaching notebooks: needle recall, memory scaling, a session timeline.

Behaviour layer of `venus.notebook`, above `_extras`. Every function returns a
`matplotlib.figure.Figure` built without pyplot (no global figure state, nothing to
close), so a notebook shows it with ``display(fig)`` and a test can inspect its axes.
Inputs are the plain figures the benchmarks print (`venus bench memory`) and the
`venus.timeline.Timeline` a session records, so a figure never needs more than a run
already wrote down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from memory.media import SAMPLE_RATE
from venus.events import (
    ControlToken,
    ControlTokenEmitted,
    FloorActionTaken,
    OverlapClassified,
    SpeechStopped,
)
from venus.notebook._extras import require

__all__ = ["recall_heatmap", "scaling_figure", "timeline_figure"]

_TOKEN_COLOURS = {ControlToken.LISTEN: "#9e9e9e", ControlToken.SPEAK: "#2e7d32",
                  ControlToken.TURN_EOS: "#1565c0"}


def _figure(width: float, height: float, rows: int = 1, cols: int = 1, **kw):
    Figure = require("matplotlib.figure").Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, **kw)
    return fig, axes


def _depth_key(depth: Any) -> float:
    try:
        return float(depth)
    except (TypeError, ValueError):
        return float("inf")


def recall_heatmap(recall: Mapping[str, Mapping[Any, float]], title: str = "recall@5"):
    """Recall by needle kind (rows) and depth (columns), as `venus bench memory` reports
    it (``figures["recall_at_5"]``: ``{kind: {depth: value}}``); cells are annotated."""
    kinds = list(recall)
    depths = sorted({d for row in recall.values() for d in row}, key=_depth_key)
    values = np.array([[recall[k].get(d, np.nan) for d in depths] for k in kinds], float)
    fig, axes = _figure(1.2 + 1.1 * max(1, len(depths)), 1.0 + 0.6 * max(1, len(kinds)))
    ax = axes[0, 0]
    image = ax.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(depths)), [_depth_label(d) for d in depths])
    ax.set_yticks(range(len(kinds)), kinds)
    ax.set_xlabel("needle depth (share of the video before it)")
    ax.set_title(title)
    for (i, j), v in np.ndenumerate(values):
        text = "-" if np.isnan(v) else f"{v:.2f}"
        ax.text(j, i, text, ha="center", va="center", color="black" if v > 0.5 else "white")
    fig.colorbar(image, ax=ax, fraction=0.05)
    return fig


def _depth_label(depth: Any) -> str:
    d = _depth_key(depth)
    return str(depth) if d == float("inf") else f"{d:.0%}"


def scaling_figure(runs: Sequence[Mapping[str, Any]]):
    """Ingest speed, query latency and peak RAM against video length, one point per
    `venus bench memory` run (its JSON figures); a run's synthetic long-memory latency
    (``query_ms_p95_10h`` at ``synthetic_hours``) extends the latency panel.

    Points are not joined: each is one run on a shared machine, and a line through three
    of them draws noise as a trend. Latency is each run's median query with a bar up to
    its 95th percentile, so the spread within a run is visible beside the runs."""
    runs = sorted(runs, key=lambda r: r["video_seconds"])
    minutes = [r["video_seconds"] / 60.0 for r in runs]
    fig, axes = _figure(11, 3.4, 1, 3)
    speed, latency, ram = axes[0]
    speed.plot(minutes, [r["x_realtime"] for r in runs], "o")
    speed.set(title="ingest speed", xlabel="video minutes", ylabel="x real time")
    p95 = np.array([r["query_ms_p95"] for r in runs], float)
    p50 = np.array([r.get("query_ms_p50", r["query_ms_p95"]) for r in runs], float)
    latency.errorbar(minutes, p50, yerr=[np.zeros_like(p50), p95 - p50], fmt="o", capsize=4,
                     label="ingested: median, bar to p95")
    synthetic = [(r["synthetic_hours"] * 60.0, r["query_ms_p95_10h"]) for r in runs
                 if r.get("synthetic_hours") and np.isfinite(r.get("query_ms_p95_10h", np.nan))]
    if synthetic:
        xs, ys = zip(*synthetic)
        latency.plot(xs, ys, "s", label="synthetic (replicated index)")
        latency.set_xscale("log")
        latency.legend(fontsize="small")
    latency.set(title="query latency", xlabel="video minutes", ylabel="ms")
    ram.plot(minutes, [r["peak_rss_mb"] for r in runs], "o")
    ram.set(title="peak RAM (process)", xlabel="video minutes", ylabel="MB")
    for ax in axes[0]:
        ax.grid(alpha=0.3)
        top = max((max(line.get_ydata(), default=0) for line in ax.lines), default=1.0)
        if ax is latency:
            top = max(top, float(np.nanmax(p95, initial=0.0)))
        ax.set_ylim(0, 1.2 * top if top > 0 else 1.0)
    return fig


def timeline_figure(timeline, *, input_audio: np.ndarray | None = None,
                    output_audio: np.ndarray | None = None, turns: Sequence[Any] = (),
                    sample_rate: int = SAMPLE_RATE, title: str = ""):
    """A session on one time axis: the microphone and the assistant's voice (envelopes),
    each scripted turn (`venus.scenario.PlacedTurn`) labelled, the control token of
    every chunk, and the overlap classifications, floor actions and stops."""
    fig, axes = _figure(11, 5.2, 3, 1, sharex=True,
                        gridspec_kw={"height_ratios": [2, 2, 1.3]})
    mic, voice, control = axes[:, 0]
    _envelope(mic, input_audio, sample_rate, "#6a1b9a", "microphone (user, others, TV)")
    for turn in turns:
        _turn_span(mic, turn)
    _envelope(voice, output_audio, sample_rate, "#ef6c00", "assistant speech (played)")
    _control_lane(control, timeline)
    _events(axes[:, 0], timeline)
    control.set_xlabel("session time (s)")
    if title:
        fig.suptitle(title)
    return fig


def _envelope(ax, audio: np.ndarray | None, rate: int, colour: str, label: str) -> None:
    ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize="small")
    ax.set_yticks([])
    if audio is None or len(audio) == 0:
        return
    hop = max(1, rate // 100)  # 10 ms peaks: a waveform of an hour stays drawable
    n = len(audio) // hop
    peaks = np.abs(np.asarray(audio[: n * hop], np.float32)).reshape(n, hop).max(axis=1)
    t = np.arange(n) * hop / rate
    ax.fill_between(t, -peaks, peaks, color=colour, linewidth=0)
    ax.set_ylim(-1.05 * max(float(peaks.max()), 1e-3), 1.05 * max(float(peaks.max()), 1e-3))


def _turn_span(ax, turn) -> None:
    label = turn.turn.label or turn.turn.speaker
    ax.axvspan(turn.start, turn.end, color="#ce93d8", alpha=0.25)
    ax.annotate(f"{label}: {turn.turn.text[:28]}", (turn.start, 1.0),
                xycoords=("data", "axes fraction"), va="top", fontsize="x-small")


def _control_lane(ax, timeline) -> None:
    ax.set_ylabel("control token", rotation=0, ha="right", va="center", fontsize="small")
    rows = {token: i for i, token in enumerate(_TOKEN_COLOURS)}
    for entry in timeline:
        if isinstance(entry.event, ControlTokenEmitted):
            token = entry.event.token
            ax.plot(entry.time, rows[token], "|", color=_TOKEN_COLOURS[token], markersize=12,
                    markeredgewidth=3)
    ax.set_yticks(list(rows.values()), [t.value for t in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)


def _events(axes, timeline) -> None:
    """Vertical marks across all lanes, each labelled in its own lane: what the frontend
    heard (microphone), what it did with its voice (assistant), floor actions (control)."""
    mic, voice, control = axes
    for entry in timeline:
        event = entry.event
        if isinstance(event, OverlapClassified):
            text, colour, lane = f"heard: {event.kind.value}", "#c62828", mic
        elif isinstance(event, FloorActionTaken):
            text, colour, lane = event.action.value, "#37474f", control
        elif isinstance(event, SpeechStopped) and event.reason != "session ended":
            text, colour, lane = "stopped", "#000000", voice
        else:
            continue
        for ax in axes:
            ax.axvline(entry.time, color=colour, alpha=0.5, linewidth=1)
        lane.annotate(text, (entry.time, 0.03), xycoords=("data", "axes fraction"),
                      rotation=90, fontsize="x-small", color=colour, va="bottom",
                      xytext=(2, 0), textcoords="offset points")
