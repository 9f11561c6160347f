"""Helpers for the teaching notebooks (``notebooks/``): figures, widgets, tiny models.

Everything a notebook shows that takes more than a call to the public API lives here,
tested, so no logic lives only in a notebook. Layers: ``_extras`` (the import guard for
the ``notebooks`` extra: matplotlib, ipywidgets, IPython, imported only when used) ->
``display`` (HTML of answers and moments), ``plots`` (matplotlib figures),
``worktable``, ``overlap``, ``bench``, ``tiny_models``, ``standin_server`` -> ``widgets``
(ipywidgets panels composed of the above).

Importing this package needs none of the extra's packages.
"""

from venus.notebook.bench import BenchmarkFailed, bench_command, run_benchmark
from venus.notebook.display import (
    answer_html,
    audio_html,
    keyframes_html,
    moments_html,
    said_and_heard_html,
    table_html,
)
from venus.notebook.overlap import (
    OVERLAP_KINDS,
    OverlapOutcome,
    outcomes_html,
    overlap_outcome,
    overlap_scenario,
)
from venus.notebook.plots import recall_heatmap, scaling_figure, timeline_figure
from venus.notebook.standin_server import Scripted, StandInChatServer, default_reply, sse_text
from venus.notebook.tiny_models import TINY_FAMILIES, build_tiny_model
from venus.notebook.widgets import AskPanel, CutoffExplorer, OverlapPlayground
from venus.notebook.worktable import WorkItemRow, WorkItemTable

__all__ = [
    "OVERLAP_KINDS", "TINY_FAMILIES", "AskPanel", "BenchmarkFailed", "CutoffExplorer",
    "OverlapOutcome", "OverlapPlayground", "Scripted", "StandInChatServer", "WorkItemRow",
    "WorkItemTable", "answer_html", "audio_html", "bench_command", "build_tiny_model",
    "default_reply", "keyframes_html", "moments_html", "outcomes_html", "overlap_outcome",
    "overlap_scenario", "recall_heatmap", "run_benchmark", "said_and_heard_html",
    "scaling_figure", "sse_text", "table_html", "timeline_figure",
]
