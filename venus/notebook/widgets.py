"""ipywidgets panels for the notebooks: knobs a person turns instead of editing code.

Composition layer of `venus.notebook`, on `display` (HTML views), `plots` and
`overlap`. Each panel keeps its state in one object with a plain method that does the
work (``AskPanel.ask``, ``CutoffExplorer.update``, ``OverlapPlayground.run``): the
widgets' callbacks call that method, and so can a notebook cell or a test, which is how
a headless run exercises them. ``widget`` is the ipywidgets view, made on first use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from memory.evidence import Answer, Moment
from venus.notebook._extras import require
from venus.notebook.display import answer_html, moments_html
from venus.notebook.overlap import OVERLAP_KINDS, OverlapOutcome, overlap_outcome, overlap_scenario

__all__ = ["AskPanel", "CutoffExplorer", "OverlapPlayground"]


def _outside_event_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn`` here, or in a worker thread (waiting for it) when this thread runs an
    event loop, as a notebook kernel and its widget callbacks do: a simulated session's
    clock runs its own loop and refuses to start inside another."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return fn(*args)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="notebook-run") as pool:
        return pool.submit(fn, *args).result()


class AskPanel:
    """A text box and a button that ask ``memory`` a question and show the cited answer.

    ``at`` is the media time the question is asked at (None: after everything seen).
    """

    def __init__(self, memory: Any, *, at: float | None = None, k: int = 3,
                 placeholder: str = "Ask about the video…") -> None:
        self.memory, self.at, self.k, self.placeholder = memory, at, k, placeholder
        self.answers: list[Answer] = []
        self._widget = None

    @property
    def widget(self):
        if self._widget is None:
            w = require("ipywidgets")
            self._text = w.Text(placeholder=self.placeholder, layout=w.Layout(width="60%"))
            button = w.Button(description="Ask", button_style="primary")
            self._out = w.HTML()
            button.on_click(lambda _: self.ask())
            self._widget = w.VBox([w.HBox([self._text, button]), self._out])
        return self._widget

    def ask(self, question: str | None = None) -> Answer | None:
        """Ask ``question`` (default: what is in the text box) and show the answer."""
        if question is None:
            question = self._text.value if self._widget is not None else ""
        elif self._widget is not None:
            self._text.value = question
        if not question.strip():
            return None
        answer = self.memory.answer(question, at=self.at, k=self.k)
        self.answers.append(answer)
        if self._widget is not None:
            self._out.value = answer_html(answer)
        return answer


class CutoffExplorer:
    """Sliders for ``k`` and the time a question is asked: the retrieved moments change,
    and none ever ends after the question's time (the memory's causal cutoff)."""

    def __init__(self, memory: Any, question: str, *, duration: float | None = None,
                 k: int = 5, at: float | None = None) -> None:
        self.memory, self.question = memory, question
        self.duration = float(duration if duration is not None else memory.duration)
        self.k, self.at = k, self.duration if at is None else at
        self.moments: list[Moment] = []
        self._widget = None

    @property
    def widget(self):
        if self._widget is None:
            w = require("ipywidgets")
            self._k = w.IntSlider(value=self.k, min=1, max=10, description="k")
            self._at = w.FloatSlider(value=self.at, min=1.0, max=self.duration, step=1.0,
                                     description="asked at (s)", continuous_update=False,
                                     layout=w.Layout(width="70%"))
            self._out = w.HTML()
            for slider in (self._k, self._at):
                slider.observe(lambda _: self.update(self._k.value, self._at.value), "value")
            self._widget = w.VBox([w.HTML(f"<b>Question:</b> {self.question}"), self._k,
                                   self._at, self._out])
            self.update(self.k, self.at)
        return self._widget

    def update(self, k: int | None = None, at: float | None = None) -> list[Moment]:
        """Search again with ``k`` moments before time ``at`` and show them."""
        self.k = int(k if k is not None else self.k)
        self.at = float(at if at is not None else self.at)
        self.moments = list(self.memory.search(self.question, k=self.k, before=self.at))
        if self._widget is not None:
            self._out.value = moments_html(self.moments, cutoff=self.at, image_width=160)
        return self.moments


class OverlapPlayground:
    """A dropdown for the overlap kind, a slider for its loudness and a Run button: runs
    the scenario in simulated time, then plays both sides and draws the timeline.

    ``runner(scenario) -> ScenarioRun`` runs a scenario (default:
    `venus.scenario.run_scenario` with the shared embedded models).
    """

    def __init__(self, runner: Callable[..., Any] | None = None, *, seed: int = 0) -> None:
        if runner is None:
            from venus.scenario import run_scenario as runner
        self.runner, self.seed = runner, seed
        self.runs: list[tuple[Any, OverlapOutcome]] = []
        self._widget = None

    @property
    def widget(self):
        if self._widget is None:
            w = require("ipywidgets")
            self._kind = w.Dropdown(options=list(OVERLAP_KINDS), description="overlap")
            self._gain = w.FloatSlider(value=0.0, min=-30.0, max=6.0, step=1.0,
                                       description="level (dB)")
            button = w.Button(description="Run", button_style="primary")
            self._out = w.Output()
            button.on_click(self._clicked)
            self._widget = w.VBox([w.HBox([self._kind, self._gain, button]), self._out])
        return self._widget

    def run(self, kind: str, gain_db: float | None = None):
        """Run one ``kind`` overlap at ``gain_db``; returns the `ScenarioRun`.

        Called from a cell with the panel shown, the knobs follow and the result is
        shown in the cell's own output, not in the panel's output area (the Run button's
        place): a headless client (nbclient, ``jupyter nbconvert --execute``) answers
        each output captured there with a message on the channel it is awaiting the
        cell's reply on, and then missed that reply (notebook 03 hung, issue 29)."""
        run, outcome = self._run(kind, gain_db)
        if self._widget is not None:
            self._kind.value = kind
            if gain_db is not None:
                self._gain.value = gain_db
            self._show(run, outcome)
        return run

    def _clicked(self, _button=None) -> None:
        """The Run button: the result replaces the last one in the panel's output area."""
        run, outcome = self._run(self._kind.value, self._gain.value)
        self._out.clear_output(wait=True)
        with self._out:
            self._show(run, outcome)

    def _run(self, kind: str, gain_db: float | None):
        run = _outside_event_loop(self.runner, overlap_scenario(kind, gain_db, seed=self.seed))
        outcome = overlap_outcome(run)
        self.runs.append((run, outcome))
        return run, outcome

    @staticmethod
    def _show(run, outcome: OverlapOutcome) -> None:
        from venus.notebook.display import audio_html
        from venus.notebook.overlap import outcomes_html
        from venus.notebook.plots import timeline_figure

        ipd = require("IPython.display")
        ipd.display(ipd.HTML(outcomes_html([outcome])
                             + audio_html("microphone: the user and the overlap", run.input_audio)
                             + audio_html("the assistant, as played", run.output_audio)))
        ipd.display(timeline_figure(run.timeline, input_audio=run.input_audio,
                                    output_audio=run.output_audio, turns=run.turns,
                                    title=run.scenario.name))
