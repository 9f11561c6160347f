"""The streaming video memory: per-chunk processing, hierarchy, persistence, retrieval.

Layers inside: ``records`` and ``config`` (data) -> ``keyframes``, ``speech``,
``pipeline``, ``hierarchy``, ``db``, ``retrieval``, ``unit_reads`` (behaviour) -> ``reader``
(which serves `memory.answering` through its `AnswerSource` port) and
``memory`` (composition: `VideoMemory`).
"""

from memory.store.config import MemoryModels, StoreOptions
from memory.store.keyframes import KeyFrameOptions
from memory.store.memory import VideoMemory
from memory.store.reader import MemoryReader
from memory.store.speech import SpeechOptions

__all__ = ["KeyFrameOptions", "MemoryModels", "MemoryReader", "SpeechOptions", "StoreOptions",
           "VideoMemory"]
