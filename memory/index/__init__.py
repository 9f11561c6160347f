"""Vector indexes behind the `VectorIndex` Protocol (FAISS is the embedded default: exact, then
IVF-PQ with its recall checked against exact search once it holds enough vectors)."""

from memory.index.base import VectorIndex
from memory.index.faiss_index import FaissIndex, IdRanges, IndexOptions

__all__ = ["FaissIndex", "IdRanges", "IndexOptions", "VectorIndex"]
