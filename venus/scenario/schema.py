"""The scenario file: a scripted conversation over an optional video, validated at load.

Bottom of `venus.scenario` (pydantic at this I/O boundary; the rest of the package uses
the validated objects). A scenario JSON looks like::

    {
      "name": "interruption",
      "video": "lecture.mp4",            // optional; frames (and memory) come from it
      "notes": [{"start": 0, "end": 30, "text": "Leaves make sugar from light."}],
      "echo": {"gain_db": -12, "delay_ms": 30},   // optional: the assistant's voice leaks in
                                                 // ("sink_lag_ms": how late the sink says it plays)
      "turns": [
        {"at": 1.0, "text": "What do leaves make?", "voice": "en-us+f2"},
        {"after_assistant": 1.5, "text": "Wait, what about roots?", "label": "interruption"}
      ]
    }

Turn timing: ``at`` is absolute session time (seconds); ``after_assistant`` is the
delay after the assistant's next utterance *starts playing* (after the previous turn
began; ``nth_utterance`` picks a later one, e.g. 2 = the result spoken after an
acknowledgement), so an overlap lands while it speaks whatever its answer's length; it must be at
least 1 s (the simulated room knows a start one chunk later). ``speaker`` is who talks
("user", "other": a third person in the room, "background": a TV), ``gain_db`` their
level relative to the synthesized voice (background speech: -10 to -25), ``label`` what
the turn is, for evaluation only (the frontend never sees it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from venus.errors import ConfigError

__all__ = ["EchoSpec", "Note", "Scenario", "ScenarioError", "Turn", "load_scenario", "parse_scenario"]

Label = Literal["question", "backchannel", "other_directed", "background", "interruption",
                "request"]


class ScenarioError(ConfigError):
    """A scenario file is missing, not JSON, or does not follow the schema."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Turn(_Strict):
    text: str = Field(min_length=1, max_length=2000)
    at: float | None = Field(default=None, ge=0)
    after_assistant: float | None = Field(default=None, ge=1.0, le=600)
    nth_utterance: int = Field(default=1, ge=1, le=20,
                               description="with after_assistant: count from the n-th start")
    speaker: Literal["user", "other", "background"] = "user"
    voice: str = "en-us"
    gain_db: float = Field(default=0.0, ge=-60, le=12)
    rate: int | None = Field(default=None, ge=80, le=450)
    pitch: int | None = Field(default=None, ge=0, le=99)
    label: Label | None = None

    @model_validator(mode="after")
    def _one_timing(self) -> Turn:
        if (self.at is None) == (self.after_assistant is None):
            raise ValueError("give exactly one of 'at' (seconds) or 'after_assistant' (seconds "
                             "after the assistant starts speaking)")
        return self


class Note(_Strict):
    """A moment of video memory given directly (for scenarios without a video)."""

    start: float = Field(ge=0)
    end: float = Field(ge=0)
    text: str = Field(min_length=1)
    transcript: str = ""
    ocr_text: str = ""


class EchoSpec(_Strict):
    """How much of the assistant's own playback reaches the microphone, how late (a
    browser's playout buffer and the air), and how late the sink says it plays
    (``sink_lag_ms``: a page's report, `venus.runtime.DuplexOptions.sink_lag_s`)."""

    gain_db: float = Field(default=-12.0, ge=-60, le=6)
    delay_ms: float = Field(default=30.0, ge=0, le=500)
    sink_lag_ms: float = Field(default=0.0, ge=0, le=500)


class Scenario(_Strict):
    name: str = "scenario"
    video: str | None = None
    video_audio_db: float | None = Field(
        default=None, ge=-60, le=12,
        description="mix the video's own audio into the microphone at this gain (None: no)")
    memory: bool = Field(default=True, description="build a video memory from the video")
    notes: list[Note] = Field(default_factory=list)
    mode: Literal["omni", "audio"] = "omni"
    assistant_name: str = "Venus"
    other_names: list[str] = Field(default_factory=list)
    echo: EchoSpec | None = None
    noise_db: float | None = Field(default=None, ge=-90, le=-10)
    tail_s: float = Field(default=10.0, ge=0, le=600)
    max_s: float = Field(default=600.0, gt=0, le=7200)
    wait_s: float = Field(default=30.0, gt=0, le=600, description=(
        "end the scenario if an after_assistant turn is still waiting this long after the "
        "previous turn ended (the assistant never spoke)"))
    seed: int = 0
    turns: list[Turn] = Field(default_factory=list)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario JSON file (`ScenarioError` says what is wrong)."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read the scenario file {path}: {exc.strerror}; "
                            f"check the path") from None
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path} is not JSON (line {exc.lineno}: {exc.msg})") from None
    scenario = parse_scenario(doc, str(path))
    if scenario.video and not Path(scenario.video).is_absolute():
        scenario = scenario.model_copy(update={"video": str(path.parent / scenario.video)})
    return scenario


def parse_scenario(doc: object, where: str = "scenario") -> Scenario:
    try:
        return Scenario.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ScenarioError(f"{where}: {loc}: {first['msg']} "
                            f"({exc.error_count()} problem(s) in all)") from None
