"""Running a scenario: the assistant in a simulated-time session, files out.

Composition on top of `venus.scenario`: assembles the assistant with `venus.assistant`
(its memory ingested live from the scenario's video, or a `memory.NotesMemory` of the
scenario's ``notes``), the `SimulatedRoom` as its source, runs it, and writes
``input.wav`` (the microphone), ``output.wav`` (the assistant, sample-aligned with the
input: same start, same length) and ``timeline.jsonl``. `ScenarioModels` (the
assistant's `venus.AssistantModels`) carries the models so repeated runs load them once.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory import Note, NotesMemory, VideoMemory
from memory.audio import write_wav
from memory.errors import StoreWriteError
from memory.media import SAMPLE_RATE
from memory.store.faults import writing
from venus.clock import Clock, SimulatedClock
from venus.factory import AssistantModels, AssistantOptions, assistant, shared_models
from venus.frontend.base import Frontend
from venus.harness import MemoryView
from venus.perception import PerceptionConfig
from venus.runtime import DuplexIO, DuplexOptions, Session, SessionOptions, SessionSummary
from venus.scenario.room import PlacedTurn, SimulatedRoom
from venus.scenario.schema import Scenario
from venus.speech import AudioSpeechOutput, SpeechOutputOptions
from venus.timeline import Timeline, TimelineEntry

__all__ = ["ScenarioModels", "ScenarioRun", "run_scenario", "shared_models", "write_wav"]

logger = logging.getLogger(__name__)

ScenarioModels = AssistantModels
"""The models a scenario run needs (the assistant's; loaded once, then reused)."""


@dataclass
class ScenarioRun:
    """What a run produced: the session summary and timeline, both signals, the turns."""

    scenario: Scenario
    summary: SessionSummary
    timeline: Timeline
    input_audio: np.ndarray
    output_audio: np.ndarray
    turns: list[PlacedTurn]
    output: AudioSpeechOutput
    frontend: Frontend
    session: Session

    @property
    def duplex(self) -> DuplexIO:
        return self.session.duplex

    def silent_after(self, t: float, level: float = 1e-3, hold_s: float = 0.2) -> float | None:
        """The first time at or after ``t`` from which the output stays below ``level``
        for ``hold_s`` (10 ms resolution); None if that never happens in the recording."""
        frame = SAMPLE_RATE // 100
        audio = self.output_audio[int(t * SAMPLE_RATE):]
        n = len(audio) // frame
        quiet = np.abs(audio[:n * frame]).reshape(n, frame).max(axis=1) < level
        hold = round(hold_s * 100)
        runs = np.convolve(quiet.astype(int), np.ones(hold, int), "valid")
        hits = np.flatnonzero(runs == hold)
        return t + hits[0] / 100 if len(hits) else None


def run_scenario(scenario: Scenario, out_dir: str | Path | None = None, *,
                 models: ScenarioModels | None = None, memory: MemoryView | None = None,
                 output_options: SpeechOutputOptions | None = None, clock: Clock | None = None,
                 on_entry: Callable[[TimelineEntry], None] | None = None) -> ScenarioRun:
    """Run ``scenario`` (in simulated time unless ``clock`` is given, e.g. a `WallClock`)
    and write the three files into ``out_dir`` if given; ``on_entry`` sees every timeline
    entry as it is recorded.

    Memory: ``memory`` if given; else the scenario's ``notes``; else, with a video, a
    `memory.VideoMemory` that grows *live* from the chunks the session watches (so an
    answer at time t only knows the video up to t), in ``out_dir/memory`` or a temp dir.
    """
    models = models or shared_models()
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        with writing(out, "output directory"):
            out.mkdir(parents=True, exist_ok=True)
            (out / "timeline.jsonl").unlink(missing_ok=True)
    live = None if memory is not None else _live_memory(scenario, out)
    feed = _LiveFeed(live) if live is not None else None
    memory = memory if memory is not None else live or _notes(scenario, models)
    timeline = Timeline(scenario.name, out / "timeline.jsonl" if out else None)
    if on_entry is not None:
        timeline.subscribe(on_entry)
    options = AssistantOptions(
        perception=PerceptionConfig(assistant_name=scenario.assistant_name,
                                    other_names=tuple(scenario.other_names)),
        voice=output_options, session=SessionOptions(drain_s=30.0),
        duplex=DuplexOptions(sink_lag_s=scenario.echo.sink_lag_ms / 1000) if scenario.echo
        else None)
    try:
        with assistant(memory, mode=scenario.mode, clock=clock or SimulatedClock(),
                       timeline=timeline, session_id=scenario.name, options=options,
                       models=models) as session:
            output = session.speech
            room = SimulatedRoom(scenario, models.tts, output=output, video=_video(scenario),
                                 on_video=feed)
            summary = session.run(room)
    finally:
        if live is not None:
            live.close()
    mic = room.input_audio()
    played = _aligned(output.waveform(), len(mic))
    faults = [f for f in (feed.fault if feed else None, timeline.write_fault) if f]
    if out is not None:
        try:
            with writing(out, "output directory"):
                write_wav(out / "input.wav", mic)
                write_wav(out / "output.wav", played)
        except StoreWriteError as exc:
            faults.append(exc)
    if faults:  # the first (the memory's ended the session: recorded); the caller says it
        raise faults[0]
    return ScenarioRun(scenario, summary, timeline, mic, played,
                       [p for p in room.placed if p is not None], output, session.frontend,
                       session)


class _LiveFeed:
    """Grows the live memory from the chunks watched. A full or read-only memory disk
    fails the source (the session records it and ends, keeping what was built), and
    `run_scenario` raises it again once the files are written."""

    def __init__(self, memory: VideoMemory) -> None:
        self.memory = memory
        self.fault: StoreWriteError | None = None

    def __call__(self, chunk) -> None:
        try:
            self.memory.add(chunk)
        except StoreWriteError as exc:
            self.fault = exc
            raise


def _aligned(audio: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, np.float32)
    out[:min(n, len(audio))] = audio[:n]
    return out


def _video(scenario: Scenario):
    if not scenario.video:
        return None
    from memory.video import open_video

    return open_video(scenario.video, fps=1.0)


def _notes(scenario: Scenario, models: ScenarioModels) -> NotesMemory | None:
    if not scenario.notes:
        return None
    return NotesMemory([Note(n.start, n.end, n.text, n.transcript, n.ocr_text)
                        for n in scenario.notes], embedder=models.embedder)


def _live_memory(scenario: Scenario, out: Path | None) -> VideoMemory | None:
    """A video memory grown from the chunks the session watches (no notes, a video)."""
    if scenario.notes or not (scenario.video and scenario.memory):
        return None
    where = out / "memory" if out else Path(tempfile.mkdtemp(prefix="venus-scenario-"))
    if out is not None and where.is_dir():
        shutil.rmtree(where)  # our own output of an earlier run: start afresh
    return VideoMemory.create(where)
