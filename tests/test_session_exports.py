"""The public surface of the runtime: exported names exist and do not drift silently."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "venus": {
        "AssistantModels", "AssistantOptions", "Capability", "CapabilityContext",
        "CapabilityRegistry", "Clock", "ControlToken", "Decision", "DelegationAction",
        "DelegationRequest", "DeliveryPolicy", "DuplexFrame", "DuplexIO", "EvidenceSnapshot",
        "FloorAction", "Frontend", "Harness", "HarnessOptions",
        "MemoryView", "RetryPolicy", "Session", "SessionOptions", "SessionSummary",
        "SessionView", "SimulatedClock", "SpeechOutput", "Timeline", "TimelineEntry",
        "WallClock", "WorkItem", "WorkResult", "WorkState", "__version__",
        "assistant", "builtin_capabilities", "capability",
    },
    "venus.runtime": {
        "DecisionRecord", "DuplexIO", "DuplexOptions", "GatePolicy", "OverlapGate", "PlaybackReport", "PlaybackStatus", "Session", "SessionOptions",
        "SessionSummary", "SpeechOutput", "TimedTextOutput", "Utterance", "compare_decisions",
        "decisions",
    },
    "venus.frontend": {
        "ControlToken", "Decision", "DelegationRequest", "DuplexFrame", "FloorAction", "Frontend",
        "Overlap", "ResultOffer", "SessionView", "WorkItemView",
    },
    "venus.speech": {
        "AssistantVoice", "AudioSpeechOutput", "EchoCanceller", "EchoEstimate", "EchoOptions",
        "Heard", "OutputControl", "PlaybackReport", "PlaybackStatus", "SpeechOutput",
        "SpeechOutputOptions", "SynthesisAhead", "TimedTextOutput", "Utterance",
        "choose_voice", "split_pieces",
    },
    "venus.testing": {
        "FakeAnswer", "FakeEndOfTurn", "FakeEvidence", "FakeFrontend", "FakeMemory", "FakeMoment",
        "FakeSpeechOutput", "FakeSynthesizer", "FakeVideoSource",
        "fake_chunk",
    },
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_exported_names_are_exactly_the_documented_ones(module_name):
    module = importlib.import_module(module_name)
    assert set(module.__all__) == PUBLIC[module_name]
    for name in module.__all__:
        assert hasattr(module, name), f"{module_name}.{name} is exported but missing"


@pytest.mark.parametrize("module_name", ["venus.harness", "venus.capabilities", "venus.events",
                                         "venus.clock", "venus.timeline"])
def test_every_exported_name_exists(module_name):
    module = importlib.import_module(module_name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == []
