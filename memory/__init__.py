"""memory: a standalone, training-free video memory for hour-scale streams.

Layers (bottom to top): ``errors`` and ``media`` (data types) -> ``models`` (embedded
ASR, VAD, OCR, embeddings, TTS) and ``video`` (sources yielding one-second chunks) ->
the memory store and retrieval built on them. This package never imports ``venus``.
"""

from memory.errors import (
    AudioFormatError,
    CameraError,
    EmptyVideoError,
    MemoryToolkitError,
    MissingExtraError,
    ModelUnavailableError,
    NoVideoStreamError,
    NotAVideoError,
    StoreError,
    TruncatedVideoError,
    VideoError,
    VideoNotFoundError,
)
from memory.media import SAMPLE_RATE, Frame, VideoChunk, VideoInfo
from memory.answer import Answer, Answerer, ExtractiveAnswerer, Moment
from memory.captioner import Captioner, TransformersVLM, VLMOptions
from memory.index import FaissIndex, IndexOptions, VectorIndex
from memory.store import MemoryModels, StoreOptions, VideoMemory

__version__ = "0.1.0"

__all__ = [
    "SAMPLE_RATE",
    "AudioFormatError",
    "CameraError",
    "EmptyVideoError",
    "Frame",
    "MemoryToolkitError",
    "MissingExtraError",
    "ModelUnavailableError",
    "NoVideoStreamError",
    "NotAVideoError",
    "StoreError",
    "TruncatedVideoError",
    "VideoChunk",
    "VideoError",
    "VideoInfo",
    "VideoNotFoundError",
    # the video memory
    "Answer",
    "Answerer",
    "Captioner",
    "ExtractiveAnswerer",
    "FaissIndex",
    "IndexOptions",
    "MemoryModels",
    "Moment",
    "StoreOptions",
    "TransformersVLM",
    "VLMOptions",
    "VectorIndex",
    "VideoMemory",
]
