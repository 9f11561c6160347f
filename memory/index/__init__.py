"""Vector indexes behind the `VectorIndex` Protocol (FAISS is the embedded default)."""

from memory.index.base import VectorIndex
from memory.index.faiss_index import FaissIndex, IndexOptions

__all__ = ["FaissIndex", "IndexOptions", "VectorIndex"]
