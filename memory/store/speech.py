"""Speech of a stream: VAD over buffered chunks, then one batched ASR call per batch.

Whisper is far cheaper per second of audio on a 10-30 s region than on a 1 s chunk, so
chunks wait here until ``batch_seconds`` of audio are buffered. The VAD then finds the
speech; regions that are still open at the end of the buffer stay buffered (a sentence
is never cut in two unless it runs past ``max_batch_seconds``), and every region before
them is transcribed in one `transcribe_batch` call. Words come back in media time and
are assigned to the chunk holding their midpoint. A streaming detector hears each chunk
once, on one owned worker thread, so the VAD overlaps decoding and ASR.

Where a batch is cut is decided on the calling thread as the chunks arrive (so it is the
same in every run of the same stream); Whisper then transcribes it on its own worker
thread, while the caller goes on decoding, finding key frames and committing the batches
before it. Finished batches come out in order, each with the VAD anchor it leaves
(`HeardBatch`): what a resumed stream must hear again to continue exactly there.

Whisper is the ingest's critical path on two cores (the caller decodes at ~40x real
time, Whisper hears at ~25x beside it), so the schedule keeps it busy from the start:
a file's batches grow with where they start (30, 30, 60, 120, then 240 s: Whisper starts
after 30 s of media instead of 4 minutes), and up to ``queue_batches`` (2) batches wait
for Whisper before the caller does, so decoding and OCR run on while Whisper works
instead of stopping at every batch boundary. Measured on the first 20 minutes of the
`venus bench memory` haystack (quiet machine): fixed 4-minute batches with one in flight
took 58.4 s (20.6x real time), the caller waiting 17.5 s at 4 boundaries and Whisper
idle for the first 4.0 s; this schedule 55.3 s (21.7x), Whisper starting at 0.5 s, the
caller done decoding at 38.6 s and waiting only for the last batches. What remains is
Whisper's own speed (see `memory._heap` for the allocator setting that took a fifth off).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk
from memory.models.base import SpeechDetector, SpeechRegion, Transcriber, Transcript, Word
from memory.store.timing import StageTimes

WINDOW_SECONDS = 512 / SAMPLE_RATE  # a streaming detector's probability step (Silero: 32 ms)

__all__ = ["HeardBatch", "InlineExecutor", "SpeechBatcher", "SpeechOptions", "chunk_words",
           "cue_words", "screen_prompt_text", "worker"]


class InlineExecutor(Executor):
    """Runs each submitted call at once on the calling thread (the no-workers mode)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the future carries it, as a worker
            future.set_exception(exc)
        return future


def worker(name: str, threads: bool) -> Executor:
    """One owned worker thread named ``memory-<name>``, or the inline executor."""
    if not threads:
        return InlineExecutor()
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"memory-{name}")


@dataclass
class SpeechOptions:
    """``batch_seconds``: audio buffered before the VAD runs; ``max_batch_seconds``: a
    region still open past this is cut; ``merge_gap``: regions closer than this are
    transcribed together (Whisper reads better with context); ``max_region``: the
    longest region sent at once (Whisper's window); ``pad``: audio kept around regions.
    ``file_batch_seconds`` / ``file_max_batch_seconds``: the same two for a whole source
    handed to `VideoMemory.ingest` (a file), where a longer batch costs nothing but the
    chunks a crash would make it redo.

    Whisper decodes the windows of one batch together (`WhisperTranscriber`), so a longer
    batch is cheaper per second: on the bench lectures (~25 s windows) 30 s batches took
    128-166 CPU s of ASR per hour of video, 120 s batches 113-122. 240 s batches took
    ~10% less CPU again than 120 s (ASR alone on the two 10-minute bench lectures,
    machine shared, load ~2-3: 132 against 159 and 190 against 211 CPU s/h) at the
    same WER (0.203 / 0.277 against 0.198 / 0.285), so a file batches by 4 minutes.
    faster-whisper's own pipeline per batch (its Silero VAD and its packing of speech
    into 30 s windows, in place of ours) heard the other voice worse (WER 0.358). Live capture
    (`VideoMemory.add`, the app's camera) keeps the short batch: what a crash loses is
    what is not committed yet, and a live viewer waits for it. A question flushes the
    batch either way.

    ``grow_file_batches``: a file's batch is as long as the media before it, between
    ``batch_seconds`` and ``file_batch_seconds`` (its longest scaled alike), so Whisper
    starts early (`SpeechBatcher.batch_lengths`). ``queue_batches``: batches cut and not
    yet heard before the caller waits for the oldest (each holds its audio: 15 MB for 4
    minutes).

    ``screen_prompt``: Whisper hears each speech region after the text the screen showed
    while it was said (`screen_prompt_text` of the key frames' OCR; `SpeechBatcher.screen`),
    so names and terms on a slide are spelled as they are shown (docs/hearing.md: dev
    WER 0.104 -> 0.086, tuning 0.202 -> 0.155)."""

    batch_seconds: float = 30.0
    max_batch_seconds: float = 60.0
    file_batch_seconds: float = 240.0
    file_max_batch_seconds: float = 360.0
    grow_file_batches: bool = True
    queue_batches: int = 2
    merge_gap: float = 0.8
    max_region: float = 28.0
    pad: float = 0.2
    open_margin: float = 0.3
    screen_prompt: bool = True


@dataclass
class HeardBatch:
    """A transcribed batch: its chunks with their words, oldest first, and ``anchor``: the
    first chunk the VAD had heard continuously once the batch was cut (None: the VAD
    restarts at the chunk after it), which a resume after this batch replays from."""

    chunks: list[tuple[VideoChunk, tuple[Word, ...]]]
    anchor: int | None


@dataclass
class _InFlight:
    heard: Future  # -> the batch's chunks with their words
    anchor: int | None


class SpeechBatcher:
    """Streaming state: the chunks whose speech is not transcribed yet. ``file``: batch
    by the options' ``file_*`` lengths (a whole file is being ingested) instead of the
    live ones; it may change between pushes (the next batch decision uses it)."""

    def __init__(self, vad: SpeechDetector, asr: Transcriber,
                 options: SpeechOptions | None = None, timers: StageTimes | None = None,
                 workers: bool = True, file: bool = False) -> None:
        self.vad, self.asr = vad, asr
        self.options = options or SpeechOptions()
        self.file = file
        self.pending: list[VideoChunk] = []
        self._covered: list[tuple[float, float]] = []  # media spans subtitles transcribe
        self.timers = timers if timers is not None else StageTimes()
        # A detector that can stream (Silero) hears each sample once; re-running it over
        # the whole buffer at every attempt made VAD cost 20x more during long speech.
        self._streams = callable(getattr(vad, "stream", None)) and \
            callable(getattr(vad, "regions_from", None))
        self._worker = worker("vad", workers) if self._streams else None
        self._asr = worker("asr", workers)
        self._inflight: list[_InFlight] = []
        self.screen: Callable[[VideoChunk], Callable[[], str]] | None = None
        """What the screen showed during a chunk, as a call the ASR worker makes (it may
        wait for OCR): set by `memory.store.pipeline.ChunkPipeline`; None: no prompt."""
        self._reset_stream()

    def _reset_stream(self) -> None:
        self._stream = self.vad.stream() if self._streams else None
        self._probs: list[float] = []
        self._jobs: list[Future] = []  # probabilities being computed, in order
        self._anchored = False         # does _probs_start hold the stream's origin?
        self.anchor_index: int | None = None  # chunk the VAD stream has heard since
        self._probs_start = 0.0        # media time of self._probs[0]
        self._retry_at = 0.0  # buffered seconds before a detector without a stream retries

    def reset(self) -> None:
        self._collect()
        self._finished(keep=0)
        self.pending.clear()
        self._covered.clear()
        self._reset_stream()

    def close(self) -> None:
        """Stop the VAD and ASR workers (after the work queued on them)."""
        if self._worker is not None:
            self._worker.shutdown(wait=True)
        self._asr.shutdown(wait=True)

    @property
    def transcribing(self) -> int:
        """Batches cut and not handed out yet."""
        return len(self._inflight)

    @property
    def batch_seconds(self) -> float:
        """Buffered seconds at which the next batch is cut (`batch_lengths`)."""
        return self.batch_lengths()[0]

    @property
    def max_batch_seconds(self) -> float:
        return self.batch_lengths()[1]

    def batch_lengths(self) -> tuple[float, float]:
        """(batch, longest batch) seconds for the batch the buffer holds now. Live: the
        short pair. A file: the ``file_*`` pair, or with ``grow_file_batches`` as long as
        the media before the batch's first chunk, between the two (from 0 s: 30, 30, 60,
        120, 240, 240 ... s), so Whisper starts after 30 s of media, not 4 minutes. It
        depends only on where the batch starts, so a resumed file batches as an unbroken
        one did."""
        o = self.options
        if not self.file:
            return o.batch_seconds, o.max_batch_seconds
        if not o.grow_file_batches or not self.pending:
            return o.file_batch_seconds, o.file_max_batch_seconds
        length = min(o.file_batch_seconds, max(o.batch_seconds, self.pending[0].start))
        longest = o.file_max_batch_seconds * length / o.file_batch_seconds
        return length, max(o.max_batch_seconds, longest)

    @property
    def buffered_seconds(self) -> float:
        return sum(c.duration for c in self.pending)

    def hear(self, chunk: VideoChunk) -> None:
        """Feed the streaming VAD one chunk without buffering it: a resumed ingest replays
        the committed chunks since `anchor_index`, so the detector's state, and with it
        every region and batch after the resume point, is what an unbroken run had."""
        if self._stream is None:
            return
        if not self._anchored:
            self._jobs.append(self._worker.submit(self._stream.reset))
            self._probs_start, self._anchored = chunk.start, True
            self.anchor_index = chunk.index
        self._jobs.append(self._worker.submit(self._hear, chunk.audio))

    def push(self, chunk: VideoChunk) -> list[tuple[VideoChunk, tuple[Word, ...]]]:
        """Buffer ``chunk``; return the chunks whose words are now known, oldest first."""
        return [pair for batch in self.push_batches(chunk) for pair in batch.chunks]

    def flush(self) -> list[tuple[VideoChunk, tuple[Word, ...]]]:
        """Transcribe everything buffered (end of stream, or a question needs it now)."""
        return [pair for batch in self.flush_batches() for pair in batch.chunks]

    def push_batches(self, chunk: VideoChunk) -> list[HeardBatch]:
        """Buffer ``chunk`` (a batch may be cut here); return the batches transcribed
        since the last call, oldest first, waiting only when more than
        ``queue_batches`` would be in flight."""
        self.hear(chunk)
        self.pending.append(chunk)
        self._covered += [(c.start, c.end) for c in chunk.cues]
        if self.buffered_seconds >= max(self.batch_seconds, self._retry_at):
            self._cut_batch(final=False)
        return self._finished(keep=max(1, self.options.queue_batches))

    def flush_batches(self) -> list[HeardBatch]:
        """Cut everything buffered into a last batch and wait for every batch."""
        if self.pending:
            self._cut_batch(final=True)
        return self._finished(keep=0)

    def _finished(self, keep: int) -> list[HeardBatch]:
        """The batches heard, oldest first: every one done, waiting for the older ones
        until at most ``keep`` are still being transcribed. Pushing keeps
        ``queue_batches`` (Whisper hears a batch while the next ones fill, and the
        caller, which decodes far faster than Whisper hears, never runs more than that
        many batches ahead: its memory stays bounded)."""
        out = []
        while self._inflight and (len(self._inflight) > keep or self._inflight[0].heard.done()):
            job = self._inflight.pop(0)
            out.append(HeardBatch(job.heard.result(), job.anchor))  # re-raises its error
        return out

    def _hear(self, audio: np.ndarray) -> list[float]:
        with self.timers.measure("vad"):
            return self._stream.feed(audio)

    def _collect(self) -> None:
        for job in self._jobs:
            self._probs += job.result() or []  # a reset job returns None
        self._jobs = []

    def _regions(self, audio: np.ndarray, origin: float) -> list[SpeechRegion]:
        """Speech in the pending buffer, in seconds from its start."""
        if not any(c.has_audio for c in self.pending):
            return []
        duration = len(audio) / SAMPLE_RATE
        if self._stream is None:
            with self.timers.measure("vad"):
                return self.vad.detect(audio)
        self._collect()
        drop = max(0, int((origin - self._probs_start) / WINDOW_SECONDS))
        self._probs = self._probs[drop:]
        self._probs_start += drop * WINDOW_SECONDS
        shift = self._probs_start - origin
        heard = self.vad.regions_from(self._probs, len(self._probs) * WINDOW_SECONDS)
        return [SpeechRegion(max(0.0, r.start + shift), min(duration, r.end + shift))
                for r in heard if r.end + shift > 0]

    def _cut_batch(self, final: bool) -> None:
        """Decide which buffered chunks form the next batch and queue their transcription."""
        origin = self.pending[0].start
        audio = np.concatenate([c.audio for c in self.pending]).astype(np.float32)
        regions = self._regions(audio, origin)
        merged = _merge(regions, self.options)
        # Chunk ends, not the sample count: a last partial second of 0.0330078 s holds
        # 528 samples (0.033 s) and must still count as reaching its end.
        duration = max(len(audio) / SAMPLE_RATE, self.pending[-1].end - origin)
        cut = self._cut(regions, duration, final)
        forced = final or cut >= duration - 1e-6
        ready = _ready(self.pending, origin, cut, [] if forced else merged)
        if not ready:
            self._retry_at = self.buffered_seconds + 5.0
            return
        self._retry_at = 0.0
        cut = ready[-1].end - origin
        todo = [SpeechRegion(r.start, min(r.end, cut)) for r in merged if r.start < cut]
        # Subtitles are the transcript where they run; Whisper hears only the rest (cue
        # times are approximate, so the speech just around a cue is the cue's too).
        covered = [(a - origin - _CUE_MARGIN_S, b - origin + _CUE_MARGIN_S)
                   for a, b in self._covered if b + _CUE_MARGIN_S > origin]
        todo = _uncovered(todo, covered)
        spans = list(self._covered)
        self._covered = [(a, b) for a, b in self._covered
                         if b + _CUE_MARGIN_S > ready[-1].end]
        self.pending = self.pending[len(ready):]
        if not self.pending:  # everything heard is used: re-anchor at the next chunk
            self._collect()
            self._probs, self._anchored, self.anchor_index = [], False, None
        screens = [(c.start, c.end, self.screen(c)) for c in ready] \
            if self.screen is not None and self.options.screen_prompt else []
        self._inflight.append(_InFlight(
            self._asr.submit(self._hear_batch, audio, origin, todo, ready, spans, screens),
            self.anchor_index))

    def _hear_batch(self, audio: np.ndarray, origin: float, todo: list[SpeechRegion],
                    ready: list[VideoChunk], spans: list[tuple[float, float]],
                    screens: list[tuple[float, float, Callable[[], str]]] = ()):
        """The words of one batch (on the ASR worker): Whisper's outside the subtitle
        ``spans``, the subtitles' own inside them."""
        shown = [(a, b, screen_prompt_text(text())) for a, b, text in screens]
        with self.timers.measure("asr"):
            heard = self._transcribe(audio, origin, todo, shown) if todo else []
        words = [w for w in heard if not _inside((w.start + w.end) / 2, spans,
                                                  _CUE_MARGIN_S)]
        words += [w for chunk in ready for cue in chunk.cues for w in cue_words(cue)]
        return chunk_words(ready, words)

    def _cut(self, regions: Sequence[SpeechRegion], duration: float, final: bool) -> float:
        """Seconds from the buffer start that can be committed now."""
        if final or not regions or regions[-1].end < duration - self.options.open_margin:
            return duration
        open_start = regions[-1].start
        longest = self.max_batch_seconds
        if duration - open_start >= longest or open_start <= 0:
            return duration if duration >= longest else 0.0
        return open_start

    def _transcribe(self, audio: np.ndarray, origin: float, regions: list[SpeechRegion],
                    shown: list[tuple[float, float, str]] = ()) -> list[Word]:
        pad = self.options.pad
        pieces, prompts = [], []
        for r in regions:
            a = max(0, int((r.start - pad) * SAMPLE_RATE))
            b = min(len(audio), int((r.end + pad) * SAMPLE_RATE))
            if b > a:
                pieces.append((audio[a:b], origin + a / SAMPLE_RATE))
                lo, hi = origin + a / SAMPLE_RATE, origin + b / SAMPLE_RATE
                prompts.append(" ".join(dict.fromkeys(
                    t for s, e, t in shown if t and s < hi and e > lo)))
        if not pieces:
            return []
        batch = getattr(self.asr, "transcribe_batch", None)
        if batch and any(prompts) and _takes_prompts(batch):
            results = batch(pieces, prompts=prompts)
        elif batch:
            results = batch(pieces)
        else:
            results = [self.asr.transcribe(a, o) for a, o in pieces]
        return [w for t in results for w in _words(t)]


def _takes_prompts(method) -> bool:
    """Does a ``transcribe_batch`` take ``prompts=`` (`WhisperTranscriber` does)?"""
    try:
        return "prompts" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def screen_prompt_text(ocr: str) -> str:
    """On-screen text as Whisper's prompt: one sentence per line, bullet marks dropped,
    and lines holding a '|' (a footer: "Course | slide 3") left out."""
    lines = [line.strip().lstrip("-*\u2022").strip() for line in ocr.splitlines()]
    kept = [line for line in lines if sum(ch.isalpha() for ch in line) >= 2 and "|" not in line]
    return " ".join(line if line[-1] in ".!?:;" else line + "." for line in kept)


_MIN_PIECE_S = 0.5  # an uncovered sliver shorter than this is not worth a Whisper call
_CUE_MARGIN_S = 0.5  # speech this close to a cue belongs to the cue


def _uncovered(regions: list[SpeechRegion],
               covered: list[tuple[float, float]]) -> list[SpeechRegion]:
    """``regions`` minus the ``covered`` spans (both in seconds from the buffer start)."""
    out = []
    for r in regions:
        pieces = [(r.start, r.end)]
        for a, b in covered:
            pieces = [p for s, e in pieces for p in ((s, min(e, a)), (max(s, b), e))
                      if p[1] > p[0]]
        out += [SpeechRegion(s, e) for s, e in pieces if e - s >= _MIN_PIECE_S]
    return out


def _inside(t: float, spans: list[tuple[float, float]], margin: float = 0.0) -> bool:
    return any(a - margin <= t < b + margin for a, b in spans)


def cue_words(cue) -> list[Word]:
    """A subtitle's words, spread evenly over its span, marked as read from subtitles."""
    tokens = cue.text.split()
    step = (cue.end - cue.start) / max(len(tokens), 1)
    return [Word(t, cue.start + i * step, cue.start + (i + 1) * step, 1.0, "subtitles")
            for i, t in enumerate(tokens)]


def _ready(pending: Sequence[VideoChunk], origin: float, cut: float,
           regions: Sequence[SpeechRegion]) -> list[VideoChunk]:
    """The longest run of chunks ending by ``cut`` at a boundary no region straddles."""
    n = 0
    for i, chunk in enumerate(pending):
        b = chunk.end - origin
        if b > cut + 1e-6:
            break
        if not any(r.start < b < r.end for r in regions):
            n = i + 1
    return list(pending[:n])


def _merge(regions: Sequence[SpeechRegion], options: SpeechOptions) -> list[SpeechRegion]:
    merged: list[SpeechRegion] = []
    for r in regions:
        if merged and r.start - merged[-1].end <= options.merge_gap \
                and r.end - merged[-1].start <= options.max_region:
            merged[-1] = SpeechRegion(merged[-1].start, r.end)
        else:
            merged.append(r)
    out: list[SpeechRegion] = []
    for r in merged:  # a monologue with no pauses: split at the window length
        start = r.start
        while r.end - start > options.max_region:
            out.append(SpeechRegion(start, start + options.max_region))
            start += options.max_region
        out.append(SpeechRegion(start, r.end))
    return out


def _words(transcript: Transcript) -> list[Word]:
    """Words with times; a segment without word timings spreads its words evenly."""
    out: list[Word] = []
    for seg in transcript.segments:
        if seg.words:
            out.extend(seg.words)
            continue
        tokens = seg.text.split()
        step = (seg.end - seg.start) / max(len(tokens), 1)
        out.extend(Word(t, seg.start + i * step, seg.start + (i + 1) * step)
                   for i, t in enumerate(tokens))
    return out


def chunk_words(chunks: Sequence[VideoChunk], words: Sequence[Word]):
    """Pair each chunk with the words whose midpoint falls inside it (the last chunk
    also takes words that overhang its end, so no word is dropped)."""
    out = []
    ordered = sorted(words, key=lambda w: w.start)
    i = 0
    for n, chunk in enumerate(chunks):
        mine = []
        last = n == len(chunks) - 1
        while i < len(ordered) and (last or (ordered[i].start + ordered[i].end) / 2 < chunk.end):
            mine.append(ordered[i])
            i += 1
        out.append((chunk, tuple(mine)))
    return out
