"""Live perception of the user, per one-second chunk: speech boundaries (Silero VAD at
32 ms), partial and final words (Whisper), prosody and loudness against the user's
calibrated level, addressee cues, and whether a face is turned toward the camera.

Layers inside the package: ``config``/``types`` (data) -> ``speech``, ``prosody``,
``addressee``, ``face``, ``transcription`` (behaviour; ASR on an owned worker thread),
``turn`` (end of turn from the audio: Smart Turn v3.2) -> ``user`` (`UserPerception`).
"""

from venus.perception.addressee import BACKCHANNELS, TopicRelation, lexical_cues
from venus.perception.config import PerceptionConfig
from venus.perception.face import FaceDetector, frontal_cascade_path
from venus.perception.prosody import LoudnessCalibration, estimate_f0, words_per_second
from venus.perception.speech import AudioWindow, SpeechTracker
from venus.perception.transcription import (
    AsrJob,
    AsrWorker,
    RegionTranscription,
    TranscriptionFailed,
)
from venus.perception.turn import EndOfTurnModel, SmartTurn, TurnPrediction
from venus.perception.types import AddresseeCues, PerceptionFrame, Prosody, SpeechBoundary
from venus.perception.user import UserPerception

__all__ = [
    "BACKCHANNELS",
    "AddresseeCues",
    "AsrJob",
    "AsrWorker",
    "AudioWindow",
    "EndOfTurnModel",
    "FaceDetector",
    "LoudnessCalibration",
    "PerceptionConfig",
    "PerceptionFrame",
    "Prosody",
    "RegionTranscription",
    "SmartTurn",
    "SpeechBoundary",
    "SpeechTracker",
    "TopicRelation",
    "TranscriptionFailed",
    "TurnPrediction",
    "UserPerception",
    "estimate_f0",
    "frontal_cascade_path",
    "lexical_cues",
    "words_per_second",
]
