"""The runtime: sessions (the dual loop), speech output and replay.

Top layer of ``venus``: composes the clock, timeline, frontend and harness.
"""

from venus.runtime.replay import DecisionRecord, compare_decisions, decisions
from venus.runtime.session import Session, SessionOptions, SessionSummary
from venus.runtime.speech import PlaybackReport, PlaybackStatus, SpeechOutput, Utterance
from venus.runtime.text_speech import TimedTextOutput

__all__ = [
    "DecisionRecord", "PlaybackReport", "PlaybackStatus", "Session", "SessionOptions",
    "SessionSummary", "SpeechOutput", "TimedTextOutput", "Utterance", "compare_decisions",
    "decisions",
]
