"""memory: a standalone, training-free video memory for hour-scale streams.

Layers (bottom to top): ``errors`` and ``media`` (data types) -> ``models`` (embedded
ASR, VAD, OCR, embeddings, TTS) and ``video`` (sources yielding one-second chunks) ->
the memory store and retrieval built on them. This package never imports ``venus``.
"""

from memory._heap import keep_freed_memory

keep_freed_memory()  # before other threads exist: see memory._heap

from memory.errors import (
    AudioFormatError,
    CameraError,
    EmptyVideoError,
    MemoryToolkitError,
    MissingExtraError,
    ModelUnavailableError,
    NetworkVideoError,
    NoVideoStreamError,
    NotAVideoError,
    NotesError,
    StoreError,
    StoreFullError,
    StoreNotWritableError,
    StoreWriteError,
    SubtitleError,
    TruncatedVideoError,
    VideoError,
    VideoNotFoundError,
)
from memory.media import SAMPLE_RATE, Frame, VideoChunk, VideoInfo
from memory.evidence import Answer, Evidence, Moment
from memory.models.base import Answerer, Captioner, Reranker
from memory.answering.reply import ExtractiveAnswerer
from memory.captioner import TransformersVLM, VLMOptions
from memory.index import FaissIndex, IndexOptions, VectorIndex
from memory.notes import Note, NotesMemory
from memory.store import MemoryModels, MemoryReader, StoreOptions, VideoMemory

def _version() -> str:
    """The installed distribution's version: pyproject.toml is the one place it is written."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("realtime-venus")
    except PackageNotFoundError:  # a source tree on sys.path without an install
        return "0+unknown"


__version__ = _version()

__all__ = [
    "SAMPLE_RATE",
    "AudioFormatError",
    "CameraError",
    "EmptyVideoError",
    "Frame",
    "MemoryToolkitError",
    "MissingExtraError",
    "ModelUnavailableError",
    "NetworkVideoError",
    "NoVideoStreamError",
    "NotAVideoError",
    "NotesError",
    "StoreError",
    "StoreFullError",
    "StoreNotWritableError",
    "StoreWriteError",
    "SubtitleError",
    "TruncatedVideoError",
    "VideoChunk",
    "VideoError",
    "VideoInfo",
    "VideoNotFoundError",
    # the video memory
    "Answer",
    "Answerer",
    "Captioner",
    "Evidence",
    "ExtractiveAnswerer",
    "FaissIndex",
    "IndexOptions",
    "MemoryModels",
    "MemoryReader",
    "Moment",
    "Reranker",
    "Note",
    "NotesMemory",
    "StoreOptions",
    "TransformersVLM",
    "VLMOptions",
    "VectorIndex",
    "VideoMemory",
]
