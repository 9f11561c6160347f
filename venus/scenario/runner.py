"""Running a scenario: the embedded frontend in a simulated-time session, files out.

Composition on top of `venus.scenario`: builds the assistant's `AudioSpeechOutput`, the
`EmbeddedFrontend`, a video memory (ingested from the scenario's video, or the scenario's
``notes``), the `SimulatedRoom` and a `Session` on a `SimulatedClock` with the built-in
capabilities, runs it, and writes ``input.wav`` (the microphone), ``output.wav`` (the
assistant, sample-aligned with the input: same start, same length) and
``timeline.jsonl``. `ScenarioModels` carries the models so repeated runs load them once.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.audio import write_wav
from memory.media import SAMPLE_RATE
from venus.capabilities import builtin_capabilities
from venus.clock import Clock, SimulatedClock
from venus.frontend.embedded import EmbeddedFrontend
from venus.perception import PerceptionConfig, UserPerception
from venus.runtime import Session, SessionOptions, SessionSummary
from venus.scenario.room import PlacedTurn, SimulatedRoom
from venus.scenario.schema import Scenario
from venus.speech import AudioSpeechOutput, SpeechOutputOptions
from venus.timeline import Timeline, TimelineEntry

__all__ = ["ScenarioModels", "ScenarioRun", "run_scenario", "shared_models", "write_wav"]

logger = logging.getLogger(__name__)


@dataclass
class ScenarioModels:
    """The models a scenario run needs, loaded on first use and then reused."""

    _cache: dict[str, Any] = field(default_factory=dict)

    def _get(self, name: str, make) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def tts(self):
        from memory.models import EspeakSynthesizer
        return self._get("tts", EspeakSynthesizer)

    @property
    def detector(self):
        from memory.models import SileroSpeechDetector
        return self._get("vad", SileroSpeechDetector)

    @property
    def transcriber(self):
        from venus.perception.transcription import user_transcriber
        return self._get("asr", user_transcriber)

    @property
    def embedder(self):
        from memory.models import MiniLMEmbedder
        return self._get("embedder", MiniLMEmbedder)


@cache
def shared_models() -> ScenarioModels:
    """One `ScenarioModels` per process."""
    return ScenarioModels()


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
    frontend: EmbeddedFrontend

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
                 models: ScenarioModels | None = None, memory: Any = None,
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
        out.mkdir(parents=True, exist_ok=True)
        (out / "timeline.jsonl").unlink(missing_ok=True)
    output = AudioSpeechOutput(output_options, synthesizer=models.tts)
    memory = memory if memory is not None else _memory(scenario, out)
    on_video = memory.add if _is_live(memory) else None
    perception = UserPerception(
        PerceptionConfig(assistant_name=scenario.assistant_name,
                         other_names=tuple(scenario.other_names),
                         deterministic=clock is None or clock.kind == "simulated"),
        detector=models.detector, transcriber=models.transcriber, embedder=models.embedder,
        faces=scenario.mode == "omni")
    frontend = EmbeddedFrontend(output, memory=memory, perception=perception, mode=scenario.mode)
    video = _video(scenario)
    room = SimulatedRoom(scenario, models.tts, output=output, video=video, on_video=on_video)
    timeline = Timeline(scenario.name, out / "timeline.jsonl" if out else None)
    if on_entry is not None:
        timeline.subscribe(on_entry)
    session = Session(frontend, room, clock=clock or SimulatedClock(), capabilities=builtin_capabilities(),
                      speech=output, memory=memory, timeline=timeline, session_id=scenario.name,
                      options=SessionOptions(drain_s=30.0))
    try:
        summary = session.run()
    finally:
        frontend.close()  # joins its ASR worker
        if _is_live(memory):
            memory.close()
    mic = room.input_audio()
    played = _aligned(output.waveform(), len(mic))
    if out is not None:
        write_wav(out / "input.wav", mic)
        write_wav(out / "output.wav", played)
    return ScenarioRun(scenario, summary, timeline, mic, played,
                       [p for p in room.placed if p is not None], output, frontend)


def _aligned(audio: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, np.float32)
    out[:min(n, len(audio))] = audio[:n]
    return out


def _video(scenario: Scenario):
    if not scenario.video:
        return None
    from memory.video import open_video

    return open_video(scenario.video, fps=1.0)


def _is_live(memory: Any) -> bool:
    return memory is not None and hasattr(memory, "add") and hasattr(memory, "close")


def _memory(scenario: Scenario, out: Path | None):
    if scenario.notes:
        from venus.testing import FakeMemory, FakeMoment

        return FakeMemory([FakeMoment(n.start, n.end, n.text, n.transcript, n.ocr_text)
                           for n in scenario.notes])
    if not (scenario.video and scenario.memory):
        return None
    from memory import VideoMemory

    where = out / "memory" if out else Path(tempfile.mkdtemp(prefix="venus-scenario-"))
    if out is not None and where.is_dir():
        shutil.rmtree(where)  # our own output of an earlier run: start afresh
    return VideoMemory.create(where)
