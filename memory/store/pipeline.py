"""Per-chunk processing: one-second `VideoChunk`s in, `ChunkRecord`s out.

Key frames are found as each chunk arrives (cheap), and only those frames are OCR'd
(and captioned when a captioner is set). Speech waits in the `SpeechBatcher` until a
batch can be transcribed, so records come out in order, a batch at a time. Time spent
per stage accumulates in ``timers`` (seconds) for the benchmark.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from memory.media import VideoChunk
from memory.models.base import TextBox
from memory.store.config import MemoryModels, StoreOptions
from memory.store.keyframes import KeyFrameDetector, Signature
from memory.store.records import ChunkRecord, KeyFrameRecord
from memory.store.speech import SpeechBatcher

__all__ = ["ChunkPipeline", "ocr_text"]


def ocr_text(boxes: list[TextBox], min_confidence: float = 0.5) -> str:
    """OCR lines in reading order (top to bottom, then left to right), one per line."""
    kept = [b for b in boxes if b.confidence >= min_confidence and b.text.strip()]
    kept.sort(key=lambda b: (round(b.box[1] / 12), b.box[0]))
    return "\n".join(b.text.strip() for b in kept)


@dataclass
class _Visual:
    keyframe_id: int | None
    ocr_text: str
    caption: str


class ChunkPipeline:
    """Streaming state: the key frame on screen and the chunks awaiting transcription."""

    def __init__(self, models: MemoryModels, options: StoreOptions, timers: dict,
                 last_keyframe: KeyFrameRecord | None = None) -> None:
        self.models, self.options, self.timers = models, options, timers
        last_sig = Signature.from_bytes(last_keyframe.signature) \
            if last_keyframe is not None and last_keyframe.signature else None
        self.detector = KeyFrameDetector(options.keyframes, last_sig)
        self.current = _Visual(last_keyframe.id, last_keyframe.ocr_text,
                               last_keyframe.caption) if last_keyframe else _Visual(None, "", "")
        self.speech = SpeechBatcher(models.get("vad"), models.get("asr"), options.speech, timers)
        self._visuals: dict[int, tuple[_Visual, KeyFrameRecord | None]] = {}

    @property
    def pending(self) -> int:
        return len(self.speech.pending)

    def push(self, chunk: VideoChunk) -> list[ChunkRecord]:
        self._visuals[chunk.index] = self._look(chunk)
        return self._records(self.speech.push(chunk))

    def flush(self) -> list[ChunkRecord]:
        return self._records(self.speech.flush())

    def _records(self, ready) -> list[ChunkRecord]:
        out = []
        for chunk, words in ready:
            visual, new = self._visuals.pop(chunk.index)
            out.append(ChunkRecord(chunk.index, chunk.start, chunk.end, words,
                                   visual.keyframe_id, visual.ocr_text, visual.caption, new))
        return out

    def _look(self, chunk: VideoChunk) -> tuple[_Visual, KeyFrameRecord | None]:
        t0 = time.perf_counter()
        changed = None
        for frame in chunk.frames:
            sig = self.detector.update(frame.image)
            if sig is not None:
                changed = (frame, sig)
        self._tick("keyframes", t0)
        if changed is None:
            return self.current, None
        frame, sig = changed
        record = KeyFrameRecord(chunk.index, frame.time, f"keyframes/{chunk.index:08d}.jpg",
                                self._read(frame.image), sig.to_bytes(),
                                self._caption(frame.image), frame.image)
        self.current = _Visual(record.id, record.ocr_text, record.caption)
        return self.current, record

    def _read(self, image) -> str:
        t0 = time.perf_counter()
        text = ocr_text(self.models.get("ocr").read(image), self.options.min_ocr_confidence)
        self._tick("ocr", t0)
        return text

    def _caption(self, image) -> str:
        if self.models.captioner is None or not self.options.caption_at_ingest:
            return ""
        t0 = time.perf_counter()
        text = self.models.captioner.caption(image)
        self._tick("caption", t0)
        return text

    def _tick(self, stage: str, t0: float) -> None:
        self.timers[stage] = self.timers.get(stage, 0.0) + time.perf_counter() - t0
