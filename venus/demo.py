"""The main job's first version: watch a video in one-second chunks and answer about it.

`StreamWatcher` runs the embedded models on each `VideoChunk` as it arrives: VAD on the
audio, Whisper on each finished stretch of speech (batched, never once per second), a
thumbnail change test on the frames with OCR on changed frames only. What it
heard and saw become timed `Note`s; `ask` retrieves the best notes by MiniLM similarity
among those that exist at the question's time (causal: nothing after ``at`` is used).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory.media import SAMPLE_RATE, Frame, VideoChunk

__all__ = ["ChunkReport", "Note", "StreamWatcher"]

_MAX_PENDING_S = 15.0  # transcribe a long stretch of speech at its next pause


@dataclass(frozen=True)
class Note:
    """Something heard (``said``) or shown (``shown``) between ``start`` and ``end``."""

    kind: str
    start: float
    end: float
    text: str


@dataclass
class ChunkReport:
    """What one chunk contributed: seconds of speech, and the notes it completed."""

    chunk: VideoChunk
    speech_s: float
    notes: list[Note] = field(default_factory=list)
    key_frame: bool = False


class StreamWatcher:
    """Builds timed notes from a stream of chunks with real VAD, ASR, OCR and embeddings."""

    def __init__(self, vad=None, asr=None, ocr=None, embedder=None,
                 change_threshold: float = 0.02) -> None:
        from memory.models import (MiniLMEmbedder, RapidOCRReader, SileroSpeechDetector,
                                   WhisperTranscriber)

        self.vad = vad or SileroSpeechDetector()
        self.asr = asr or WhisperTranscriber()
        self.ocr = ocr or RapidOCRReader()
        self.embedder = embedder or MiniLMEmbedder()
        self.change_threshold = change_threshold
        self.notes: list[Note] = []
        self._vectors: list[np.ndarray] = []
        self._pending: list[np.ndarray] = []
        self._pending_start = 0.0
        self._last_thumb: np.ndarray | None = None
        self.now = 0.0

    def add(self, chunk: VideoChunk) -> ChunkReport:
        regions = self.vad.detect(chunk.audio) if chunk.has_audio else []
        report = ChunkReport(chunk, speech_s=sum(r.end - r.start for r in regions))
        report.notes += self._hear(chunk, regions)
        for frame in chunk.frames:
            note = self._see(frame)
            if note:
                report.key_frame = True
                report.notes.append(note)
        self._remember(report.notes)
        self.now = chunk.end
        return report

    def finish(self) -> list[Note]:
        """Transcribe whatever speech is still pending at the end of the stream."""
        notes = self._flush(len(np.concatenate(self._pending)) if self._pending else 0)
        self._remember(notes)
        return notes

    def ask(self, question: str, at: float | None = None, k: int = 3) -> list[tuple[float, Note]]:
        """The ``k`` notes most similar to ``question`` among those ended by time ``at``."""
        at = self.now if at is None else at
        visible = [i for i, n in enumerate(self.notes) if n.end <= at]
        if not visible:
            return []
        q = self.embedder.embed([question])[0]
        scores = np.stack([self._vectors[i] for i in visible]) @ q
        best = np.argsort(-scores)[:k]
        return [(float(scores[j]), self.notes[visible[j]]) for j in best]

    # -- hearing ---------------------------------------------------------------------------

    def _hear(self, chunk: VideoChunk, regions) -> list[Note]:
        if regions:
            if not self._pending:
                self._pending_start = chunk.start
            self._pending.append(chunk.audio)
            pending_s = sum(len(a) for a in self._pending) / SAMPLE_RATE
            gap = _first_gap(regions, chunk.duration)
            if pending_s >= _MAX_PENDING_S and gap is not None:
                cut = len(np.concatenate(self._pending)) - len(chunk.audio) + int(gap * SAMPLE_RATE)
                return self._flush(cut)
            return []
        return self._flush(len(np.concatenate(self._pending))) if self._pending else []

    def _flush(self, cut: int) -> list[Note]:
        if not self._pending:
            return []
        audio = np.concatenate(self._pending)
        start = self._pending_start
        head, tail = audio[:cut], audio[cut:]
        self._pending = [tail] if tail.size else []
        self._pending_start = start + cut / SAMPLE_RATE
        transcript = self.asr.transcribe(head, offset=start)
        return [Note("said", s.start, s.end, s.text.strip())
                for s in transcript.segments if s.text.strip()]

    # -- seeing ----------------------------------------------------------------------------

    def _see(self, frame: Frame) -> Note | None:
        thumb = _thumbnail(frame.image)
        if self._last_thumb is not None and \
                np.abs(thumb - self._last_thumb).mean() <= self.change_threshold:
            return None
        self._last_thumb = thumb
        text = " | ".join(box.text for box in self.ocr.read(frame.image))
        return Note("shown", frame.time, frame.time, text) if text else None

    def _remember(self, notes: list[Note]) -> None:
        if notes:
            self.notes.extend(notes)
            self._vectors.extend(self.embedder.embed([n.text for n in notes]))


def _thumbnail(image: np.ndarray) -> np.ndarray:
    """A ~64-pixel-wide grey thumbnail in [0, 1]: text moving on a slide changes it."""
    step = max(1, image.shape[1] // 64)
    return image[::step, ::step].mean(axis=2, dtype=np.float32) / 255.0


def _first_gap(regions, duration: float, min_gap: float = 0.2) -> float | None:
    """The middle of the first pause between (or after) speech regions within a chunk."""
    for a, b in zip(regions, regions[1:]):
        if b.start - a.end >= min_gap:
            return (a.end + b.start) / 2
    if duration - regions[-1].end >= min_gap:
        return (regions[-1].end + duration) / 2
    return None
