"""Speech output for the assistant: the output seams, TTS in short pieces behind a playout
queue with a cursor on session time, atomic stop/flush, ducking and pausing at sample
resolution, word-level playback acknowledgement, and echo control against the played signal.

Layers inside the package: ``base`` (the `SpeechOutput` / `OutputControl` Protocols and
their data) -> ``pieces`` (text), ``echo`` (numpy), ``synthesis`` (the assistant's voice,
synthesis ahead on a worker) -> ``text`` (`TimedTextOutput`) and ``output``
(`AudioSpeechOutput`).
"""

from venus.speech.base import (
    Heard,
    OutputControl,
    PlaybackReport,
    PlaybackStatus,
    SpeechOutput,
    Utterance,
)
from venus.speech.echo import EchoCanceller, EchoEstimate, EchoOptions
from venus.speech.output import AudioSpeechOutput, SpeechOutputOptions
from venus.speech.pieces import split_pieces
from venus.speech.synthesis import AssistantVoice, SynthesisAhead, choose_voice
from venus.speech.text import TimedTextOutput

__all__ = [
    "AssistantVoice", "AudioSpeechOutput", "EchoCanceller", "EchoEstimate", "EchoOptions", "Heard",
    "OutputControl", "PlaybackReport", "PlaybackStatus", "SpeechOutput", "SpeechOutputOptions",
    "SynthesisAhead", "TimedTextOutput", "Utterance", "choose_voice", "split_pieces",
]
