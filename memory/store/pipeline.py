"""Per-chunk processing: one-second `VideoChunk`s in, batches of `ChunkRecord`s out.

Key frames are found as each chunk arrives (cheap), and only those frames are read by
OCR (and captioned when asked); `ScreenReader` recognises only the lines whose pixels
changed since the last key frame. Reading runs on one background worker, the VAD on
another and Whisper on a third (`SpeechBatcher`), while the calling thread decodes,
finds key frames and commits: on two cores the stages overlap instead of waiting for
each other. Speech waits in the `SpeechBatcher` until a batch can be transcribed, and
records come out in order, a batch at a time (`RecordBatch`, committed one by one), once
their words are heard and their key frames read. Busy time per stage accumulates in
``timers`` (`StageTimes`: wall and CPU seconds; stages on different threads overlap).
With ``StoreOptions.workers=False`` every stage runs on the calling thread, one after
another (what `venus bench ingest` measures each stage's cost with).
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future
from dataclasses import dataclass

from memory.media import VideoChunk
from memory.store.config import MemoryModels, StoreOptions
from memory.store.keyframes import KeyFrameDetector, Signature
from memory.store.records import ChunkRecord, KeyFrameRecord
from memory.store.screen import ScreenReader
from memory.store.screen_text import ocr_text
from memory.store.speech import HeardBatch, SpeechBatcher, worker
from memory.store.timing import StageTimes

__all__ = ["ChunkPipeline", "RecordBatch", "ocr_text"]


@dataclass
class RecordBatch:
    """One speech batch's records, oldest first, and the VAD anchor to store with them
    (`HeardBatch.anchor`)."""

    records: list[ChunkRecord]
    anchor: int | None


@dataclass
class _Visual:
    """The key frame on screen for a chunk; its text arrives from the reader worker."""

    keyframe_id: int | None
    reading: Future  # -> (ocr_text, caption)
    new: KeyFrameRecord | None = None


def _done(value) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


class ChunkPipeline:
    """Streaming state: the key frame on screen, chunks awaiting transcription, and the
    worker reading key frames (owned here; `close` stops it)."""

    def __init__(self, models: MemoryModels, options: StoreOptions, timers: StageTimes,
                 last_keyframe: KeyFrameRecord | None = None) -> None:
        self.models, self.options, self.timers = models, options, timers
        last_sig = Signature.from_bytes(last_keyframe.signature) \
            if last_keyframe is not None and last_keyframe.signature else None
        self.detector = KeyFrameDetector(options.keyframes, last_sig)
        self.current = _Visual(last_keyframe.id,
                               _done((last_keyframe.ocr_text, last_keyframe.caption))) \
            if last_keyframe else _Visual(None, _done(("", "")))
        self.screen = ScreenReader(models.ocr, options.screen, timers)
        models.ocr  # load the models on this thread, before any work is queued
        self.speech = SpeechBatcher(models.vad, models.asr, options.speech, timers,
                                    workers=options.workers)
        self.speech.screen = self._screen  # Whisper's prompt: the slide being spoken to
        self._reader = worker("ocr", options.workers)
        self._visuals: dict[int, _Visual] = {}

    @property
    def pending(self) -> int:
        """Chunks handed in and not handed out yet (buffered or being transcribed)."""
        return len(self._visuals)

    def hear(self, chunk: VideoChunk) -> None:
        """A chunk committed before a restart: only the VAD hears it again."""
        self.speech.hear(chunk)

    def push(self, chunk: VideoChunk) -> list[RecordBatch]:
        self._visuals[chunk.index] = self._look(chunk)
        # Speech waits minutes for its batch: it keeps the audio, not the frames
        # (60 buffered seconds of 4K frames were 1.5 GB).
        return self._records(self.speech.push_batches(dataclasses.replace(chunk, frames=())))

    def flush(self) -> list[RecordBatch]:
        return self._records(self.speech.flush_batches())

    def close(self) -> None:
        """Stop the workers (each finishes what it was given)."""
        self._reader.shutdown(wait=True)
        self.speech.close()

    def _records(self, batches: list[HeardBatch]) -> list[RecordBatch]:
        return [RecordBatch([self._record(chunk, words) for chunk, words in batch.chunks],
                            batch.anchor) for batch in batches]

    def _record(self, chunk: VideoChunk, words) -> ChunkRecord:
        visual = self._visuals.pop(chunk.index)
        text, caption = visual.reading.result()  # re-raises an OCR failure here
        new = visual.new
        if new is not None:
            new.ocr_text, new.caption = text, caption
        return ChunkRecord(chunk.index, chunk.start, chunk.end, words,
                           visual.keyframe_id, text, caption, new)

    def _screen(self, chunk: VideoChunk):
        """The OCR text on screen during ``chunk``, read when called (on the ASR worker,
        which waits for the reader if it is behind); "" where OCR failed (the failure is
        raised when the chunk's record is made)."""
        reading = self._visuals[chunk.index].reading

        def text() -> str:
            try:
                return reading.result()[0]
            except Exception:  # noqa: BLE001 - re-raised by _record, on the caller
                return ""
        return text

    def _look(self, chunk: VideoChunk) -> _Visual:
        changed = None
        with self.timers.measure("keyframes"):
            for frame in chunk.frames:
                sig = self.detector.update(frame.image)
                if sig is not None:
                    changed = (frame, sig)
        if changed is None:
            return _Visual(self.current.keyframe_id, self.current.reading)
        frame, sig = changed
        record = KeyFrameRecord(chunk.index, frame.time, f"keyframes/{chunk.index:08d}.jpg",
                                "", sig.to_bytes(), "", frame.image)
        self.current = _Visual(record.id, self._reader.submit(self._read, frame.image), record)
        return self.current

    def _read(self, image) -> tuple[str, str]:
        with self.timers.measure("ocr"):
            text = ocr_text(self.screen.read(image), self.options.min_ocr_confidence)
        return text, self._caption(image)

    def _caption(self, image) -> str:
        if self.models.captioner is None or not self.options.caption_at_ingest:
            return ""
        with self.timers.measure("caption"):
            return self.models.captioner.caption(image)
