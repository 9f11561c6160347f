"""Key-frame vectors: the pictures of a memory in an image model's space, under the cutoff.

With an `ImageEmbedder` in `MemoryModels.image_embedder` (a CLIP / SigLIP pair of
towers), every new key frame is embedded as its chunk is committed; the vector is written
to SQLite in the same transaction as the chunk (`memory.store.db`), so a crash loses or
repeats nothing and a resumed ingest embeds the same key frames again. A FAISS index keyed
by key-frame id holds them; ``keyframes.faiss`` is a checkpoint of those rows, topped up
from SQLite on open like the text levels. Key frames stored before an image model was
plugged in are embedded from their JPEGs the first time a writer opens the memory with one.
The model that made the vectors is named in the metadata, so a memory opened without it
says which model to pass (and one opened with no image model at all behaves as before).

Key-frame ids are the index of the chunk where the frame appeared, so they grow with
time and the causal cutoff is an id range: a key frame is visible to a read at time t
once its chunk has ended by t. A key frame is on screen from its chunk's start until the
next key frame appears; a time window selects the key frames on screen during it.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memory.errors import StoreError
from memory.evidence import Answer
from memory.index.faiss_index import FaissIndex, IndexOptions
from memory.models.base import ImageEmbedder
from memory.store.db import MemoryDB
from memory.store.records import ChunkRecord

__all__ = ["CHECKPOINT", "NO_IMAGE_MODEL", "PictureIndex", "asks_what_was_seen", "made_by"]

logger = logging.getLogger(__name__)
CHECKPOINT = "keyframes.faiss"
_FILL_BATCH = 32
NO_IMAGE_MODEL = (
    "No image model is plugged in, so pictures are found only by their text: pass "
    "MemoryModels(image_embedder=TransformersImageEmbedder(\"/path/to/clip-or-siglip\")) "
    "with a CLIP or SigLIP checkpoint on this machine.")
"""The one sentence a visual question or search gets without an `ImageEmbedder` (no image
model ships in any package, so it names a local path, never a download)."""
_SEEN = re.compile(r"\b(on (the )?screen|see|saw|seen|shown?|showed|showing|look(ed|s)?|"
                   r"pictures?|images?|visible|scenes?|colou?rs?|wear(ing)?)\b", re.IGNORECASE)


def asks_what_was_seen(question: str) -> bool:
    """Whether ``question`` asks about something seen (the screen, a picture, a scene)."""
    return bool(_SEEN.search(question))


def made_by(embedder: ImageEmbedder) -> str:
    """How to construct ``embedder`` again, for messages: ``Class('/its/path')``."""
    path = getattr(embedder, "model_path", None)
    return f"{type(embedder).__name__}({str(path)!r})" if path else f"{type(embedder).__name__}()"


class PictureIndex:
    """The key-frame vectors of one memory directory and the image model that made them."""

    def __init__(self, directory: Path, db: MemoryDB, embedder: ImageEmbedder | None,
                 options: IndexOptions, writable: bool) -> None:
        self.directory, self.db, self.embedder = directory, db, embedder
        self.options, self.writable = options, writable
        self.vectors: FaissIndex | None = None
        self._ids = np.zeros(0, np.int64)
        self._starts = np.zeros(0)
        self._ends = np.zeros(0)
        self._texts: dict[str, np.ndarray] = {}
        self.reload()

    # -- loading ----------------------------------------------------------------------
    def reload(self) -> None:
        """Read the vectors SQLite holds (on top of the checkpoint when it matches)."""
        rows = self.db.keyframe_vectors()
        self._ids = np.array([r[0] for r in rows], np.int64)
        self._starts = np.array([r[1] for r in rows], float)
        self._ends = np.array([r[2] for r in rows], float)
        self._texts.clear()
        if not rows:
            self.vectors = None
            return
        dim = len(rows[0][3])
        index = self._checkpoint(dim) or FaissIndex(dim, self.options)
        present = set(index.ids().tolist())
        todo = [(i, v) for i, _, _, v in rows if i not in present]
        if todo:
            index.add(np.array([i for i, _ in todo]), np.vstack([v for _, v in todo]))
        stale = present - set(self._ids.tolist())
        if stale:
            index.remove(np.array(sorted(stale)))
        self.vectors = index

    def _checkpoint(self, dim: int) -> FaissIndex | None:
        path = self.directory / CHECKPOINT
        if not path.is_file():
            return None
        try:
            index = FaissIndex.load(str(path), self.options)
        except StoreError as exc:
            logger.warning("%s; rebuilding it from the metadata", exc)
            return None
        return index if index.dim == dim else None

    def save(self) -> None:
        """Checkpoint the index (a writer only: a reader never writes the directory)."""
        if self.writable and self.vectors is not None:
            self.vectors.save(str(self.directory / CHECKPOINT))

    def __len__(self) -> int:
        return len(self._ids)

    def missing_model(self) -> str:
        """What a search of the pictures says without an image model: the model that
        embedded this memory's key frames when there is one, else `NO_IMAGE_MODEL`."""
        model = self.db.get_meta("image_model")
        if not model or not len(self):
            return NO_IMAGE_MODEL
        return (f"This memory's key frames were embedded by {model}, which is not plugged "
                f"in: pass MemoryModels(image_embedder={model}) (the same model, from this "
                f"machine) to search its pictures; without it they are found only by their "
                f"text.")

    def hint(self, answer: Answer) -> Answer:
        """``answer`` to a question about something seen, without an image model, when its
        lead moment shows no text or caption or lies outside the time asked about: it
        ends with what to plug in."""
        if self.embedder is not None or not asks_what_was_seen(answer.question):
            return answer
        lead = answer.citations[0] if answer.citations else None
        lo, hi = answer.time_window
        if answer.found and lead is not None and (lead.ocr_text.strip() or lead.caption.strip()) \
                and (lo is None or lead.end >= lo) and (hi is None or lead.start <= hi):
            return answer
        return dataclasses.replace(answer, text=f"{answer.text} {self.missing_model()}")

    # -- writing ----------------------------------------------------------------------
    def embed_new(self, records: Sequence[ChunkRecord]) -> None:
        """Give each new key frame of ``records`` its vector (before they are committed)."""
        frames = [r.new_keyframe for r in records
                  if r.new_keyframe is not None and r.new_keyframe.image is not None]
        if self.embedder is None or not frames:
            return
        vectors = self._embed_images([f.image for f in frames])
        for frame, vector in zip(frames, vectors):
            frame.embedding = vector

    def add(self, records: Sequence[ChunkRecord]) -> None:
        """Index the key frames of ``records`` that were committed with a vector."""
        new = [(r.new_keyframe.id, r.start, r.end, r.new_keyframe.embedding) for r in records
               if r.new_keyframe is not None and r.new_keyframe.embedding is not None]
        if not new:
            return
        if self.vectors is None:
            self.vectors = FaissIndex(len(new[0][3]), self.options)
        self.vectors.add(np.array([n[0] for n in new]), np.vstack([n[3] for n in new]))
        self._ids = np.concatenate([self._ids, [n[0] for n in new]]).astype(np.int64)
        self._starts = np.concatenate([self._starts, [n[1] for n in new]])
        self._ends = np.concatenate([self._ends, [n[2] for n in new]])

    def fill(self) -> None:
        """Embed the stored key frames that have no vector yet (from their JPEGs)."""
        if self.embedder is None or not self.writable:
            return
        todo = self.db.keyframes_without_vectors()
        if not todo:
            return
        logger.info("embedding %d stored key frames with the image model", len(todo))
        from memory.models.image_embedder import as_rgb

        for lo in range(0, len(todo), _FILL_BATCH):
            batch = [(i, self.directory / path) for i, path in todo[lo:lo + _FILL_BATCH]]
            readable = [(i, p) for i, p in batch if p.is_file()]
            for i, p in batch:
                if not p.is_file():
                    logger.warning("key frame %s is missing on disk; it stays unembedded", p)
            if readable:
                vectors = self._embed_images([as_rgb(p) for _, p in readable])
                self.db.write_keyframe_vectors([(i, v) for (i, _), v in zip(readable, vectors)])
        self.reload()
        self.save()

    def _embed_images(self, images: list[np.ndarray]) -> np.ndarray:
        vectors = np.asarray(self.embedder.embed_images(images), np.float32)
        self._check_dim(vectors.shape[1])
        return vectors

    def _check_dim(self, dim: int) -> None:
        stored = self.db.get_meta("image_dim")
        if stored is None:
            if self.writable:
                self.db.set_meta("image_dim", dim)
                self.db.set_meta("image_model", made_by(self.embedder))
        elif int(stored) != dim:
            raise StoreError(f"this memory's key frames were embedded as {stored}-d vectors but "
                             f"the image model gives {dim}-d; open it with the same image model "
                             f"or re-ingest into a new memory")

    # -- reading ----------------------------------------------------------------------
    def text_vector(self, text: str) -> np.ndarray:
        """``text`` in the pictures' space (the image model's text tower), cached."""
        vector = self._texts.get(text)
        if vector is None:
            vector = np.asarray(self.embedder.embed_texts([text]), np.float32)[0]
            self._check_dim(len(vector))
            self._texts[text] = vector
            while len(self._texts) > 64:
                self._texts.pop(next(iter(self._texts)))
        return vector

    def image_vector(self, image: np.ndarray) -> np.ndarray:
        return self._embed_images([image])[0]

    def search(self, vector: np.ndarray, k: int, before: float | None,
               start: float | None = None, end: float | None = None) -> list[tuple[int, float]]:
        """The ``k`` key frames closest to ``vector`` among those whose chunk ended by
        ``before`` and that were on screen during ``[start, end]``: ``(id, score)``."""
        id_range = self.id_range(before, start, end)
        if self.vectors is None or id_range is None or k <= 0:
            return []
        scores, ids = self.vectors.search(np.asarray(vector, np.float32)[None, :], k, id_range)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]

    def segment_ranking(self, vector: np.ndarray, k: int, before: float | None,
                        start: float | None, end: float | None,
                        segments: tuple[int, int] | None,
                        open_keyframes: set[int]) -> list[tuple[int, int]]:
        """Segments ranked by the best key frame they show: ``(segment id, key frame id)``
        best first; only segments in the id range ``segments`` (those closed by the cutoff
        and inside the window), and -1 for the stretch not yet closed into a segment when a
        key frame of ``open_keyframes`` (those on screen in it) ranks."""
        hits = self.search(vector, k, before, start, end)
        showing = self.db.segments_showing([i for i, _ in hits])
        ranked: dict[int, int] = {}
        for keyframe_id, _ in hits:
            for segment_id in showing.get(keyframe_id, []):
                if segment_id is not None and segments is not None \
                        and segments[0] <= segment_id < segments[1]:
                    ranked.setdefault(int(segment_id), keyframe_id)
            if keyframe_id in open_keyframes:
                ranked.setdefault(-1, keyframe_id)
        return list(ranked.items())

    def id_range(self, before: float | None, start: float | None = None,
                 end: float | None = None) -> tuple[int, int] | None:
        ids = self._ids
        hi = len(ids)
        if before is not None:
            hi = int(np.searchsorted(self._ends, before + 1e-6, side="right"))
        if end is not None:
            hi = min(hi, int(np.searchsorted(self._starts, end, side="left")))
        lo = 0
        if start is not None:  # the key frame on screen at ``start`` is the last one before it
            lo = max(0, int(np.searchsorted(self._starts, start, side="right")) - 1)
        if lo >= hi:
            return None
        return int(ids[lo]), int(ids[hi - 1]) + 1
