"""Speech output for the assistant: TTS in short pieces behind a playout queue with a
cursor on session time, atomic stop/flush, ducking and pausing at sample resolution,
word-level playback acknowledgement, and echo control against the played signal.

Layers inside the package: ``pieces`` (text) -> ``echo`` (numpy) -> ``output``
(`AudioSpeechOutput`, implementing `venus.runtime.SpeechOutput`).
"""

from venus.speech.echo import EchoCanceller, EchoEstimate, EchoOptions
from venus.speech.output import AudioSpeechOutput, Heard, SpeechOutputOptions
from venus.speech.pieces import split_pieces

__all__ = [
    "AudioSpeechOutput", "EchoCanceller", "EchoEstimate", "EchoOptions", "Heard",
    "SpeechOutputOptions", "split_pieces",
]
