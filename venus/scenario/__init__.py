"""Scripted conversations in simulated time: who says what when, in which voice and at
which level, over an optional video; the simulated microphone (with the assistant's echo)
and a runner that writes ``input.wav``, ``output.wav`` and ``timeline.jsonl``.

Layers: ``schema`` (the validated JSON file) -> ``room`` (`SimulatedRoom`, the chunk
source) -> ``runner`` (`run_scenario`, composition with the embedded frontend).
"""

from venus.scenario.room import PlacedTurn, SimulatedRoom
from venus.scenario.runner import (
    ScenarioModels,
    ScenarioRun,
    run_scenario,
    shared_models,
    write_wav,
)
from venus.scenario.schema import (
    EchoSpec,
    Note,
    Scenario,
    ScenarioError,
    Turn,
    load_scenario,
    parse_scenario,
)

__all__ = [
    "EchoSpec", "Note", "PlacedTurn", "Scenario", "ScenarioError", "ScenarioModels",
    "ScenarioRun", "SimulatedRoom", "Turn", "load_scenario", "parse_scenario", "run_scenario",
    "shared_models", "write_wav",
]
