"""The runtime: the duplex I/O of a session (echo, perception, the overlap gate, the
output), sessions (the dual loop) and replay.

The layer above the frontends and the harness: composes the clock, timeline, duplex I/O,
frontend and harness link. The speech-output seam lives below, in `venus.speech`; its
names are re-exported here for convenience.
"""

from venus.runtime.duplex import DuplexIO, DuplexOptions, GatePolicy, OverlapGate
from venus.runtime.replay import DecisionRecord, compare_decisions, decisions
from venus.runtime.session import Session, SessionOptions, SessionSummary
from venus.speech.base import PlaybackReport, PlaybackStatus, SpeechOutput, Utterance
from venus.speech.text import TimedTextOutput

__all__ = [
    "DecisionRecord", "DuplexIO", "DuplexOptions", "GatePolicy", "OverlapGate",
    "PlaybackReport", "PlaybackStatus", "Session", "SessionOptions", "SessionSummary",
    "SpeechOutput", "TimedTextOutput", "Utterance", "compare_decisions", "decisions",
]
