"""``venus bench ingest --compare``: the memory's ASR path beside faster-whisper's own.

On each lecture's audio (decoded from the video by the memory's decoder, 16 kHz mono)
three paths transcribe the whole lecture with the *same loaded* Whisper model and the
same decoding options (the memory transcriber's beam size, language and temperatures),
so only the pipeline around the model differs:

* ``memory``: what `VideoMemory.ingest` runs on a file: one-second chunks into
  `SpeechBatcher` with the file batch length (the memory's Silero VAD, regions batched,
  `Transcriber.transcribe_batch`), on one thread;
* ``memory_live``: the same with the live batch length (`VideoMemory.add`, a camera);
* ``batched``: faster-whisper's ``BatchedInferencePipeline.transcribe`` (its own Silero
  VAD, speech packed into 30 s windows, ``batch_size`` windows per model call);
* ``vad_filter``: faster-whisper's ``WhisperModel.transcribe(vad_filter=True)``.

Runs are interleaved (the order rotates each round) and figures are medians over
``--repeat`` rounds: wall and CPU seconds (``time.process_time``: every thread), x real
time, each path's wall time over the memory path's (the ratio), and WER against the
script with the Whisper English normalizer (``whisper-normalizer``, the ``bench`` extra),
every word timed (the memory needs word timestamps).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PATHS", "Comparison", "compare", "whisper_wer"]

PATHS = ("memory", "memory_live", "batched", "vad_filter")
BATCH_SIZE = 8


def whisper_wer(reference: str, hypothesis: str) -> float:
    """WER after the Whisper English normalizer on both sides (the standard rule)."""
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as exc:
        raise SystemExit("the ASR comparison scores with the Whisper English normalizer: "
                         "pip install 'realtime-venus[bench]' (whisper-normalizer)") from exc
    from memory.models.textnorm import word_error_rate

    normalize = EnglishTextNormalizer()
    return word_error_rate(normalize(reference), normalize(hypothesis))


@dataclass
class Comparison:
    """Per lecture and path: median figures; ``rows_as`` lays them out as table rows."""

    figures: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        parts = []
        for name, paths in self.figures.items():
            parts.append(f"{name}: " + ", ".join(
                f"{p} {f['x_realtime']:.1f}x WER {f['wer']:.3f}" for p, f in paths.items()))
        return "; ".join(parts)

    def rows_as(self, width: int) -> list[list[Any]]:
        head = ["lecture", "ASR path", "x real time", "wall vs memory", "WER", "CPU s/h"]
        rows = [head + [""] * (width - len(head))]
        for name, paths in self.figures.items():
            for path, f in paths.items():
                row = [name, path, f"{f['x_realtime']:.1f}x", f"{f['ratio']:.2f}",
                       f"{f['wer']:.3f}", f"{f['cpu_s_per_h']:.0f}"]
                rows.append(row + [""] * (width - len(row)))
        return rows


def compare(videos: dict[str, tuple[Path, dict]], repeat: int = 1,
            device: str = "cpu") -> Comparison:
    from memory.models import SileroSpeechDetector, WhisperTranscriber

    asr, vad = WhisperTranscriber(device=device), SileroSpeechDetector()
    asr.transcribe(np.zeros(16000, np.float32))  # load and warm once, outside the timing
    out = Comparison()
    for name, (video, truth) in videos.items():
        audio = _audio(video)
        reference = " ".join(s["text"] for s in truth["sentences"])
        runs: dict[str, list[dict[str, float]]] = {p: [] for p in PATHS}
        for r in range(max(1, repeat)):
            order = PATHS[r % len(PATHS):] + PATHS[:r % len(PATHS)]
            for path in order:
                runs[path].append(_timed(_PATHS[path], asr, vad, audio, reference))
                print(f"  ASR {name} {path}: {len(audio) / 16000 / runs[path][-1]['wall']:.1f}x"
                      f" real time, WER {runs[path][-1]['wer']:.3f}")
        out.figures[name] = _figures(runs, len(audio) / 16000)
    return out


def _figures(runs: dict[str, list[dict[str, float]]], seconds: float) -> dict[str, dict]:
    walls = {p: statistics.median(x["wall"] for x in rs) for p, rs in runs.items()}
    return {p: {"x_realtime": seconds / walls[p], "wall_s": walls[p],
                "best_x_realtime": seconds / min(x["wall"] for x in rs),
                "cpu_s_per_h": 3600.0 * statistics.median(x["cpu"] for x in rs) / seconds,
                "ratio": walls[p] / walls["memory"], "wer": rs[0]["wer"],
                "words": rs[0]["words"], "runs": len(rs)}
            for p, rs in runs.items()}


def _audio(video: Path) -> np.ndarray:
    from memory.video import open_video

    with open_video(video) as source:
        return np.concatenate([c.audio for c in source]).astype(np.float32)


def _timed(path: Callable, asr, vad, audio: np.ndarray, reference: str) -> dict[str, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    words = path(asr, vad, audio)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if any(w.end < w.start for w in words):
        raise AssertionError("a path returned a word ending before it starts")
    return {"wall": wall, "cpu": cpu, "words": len(words),
            "wer": whisper_wer(reference, " ".join(w.text for w in words))}


def _memory(asr, vad, audio: np.ndarray, file: bool = True) -> list:
    from memory.media import VideoChunk
    from memory.store.speech import SpeechBatcher

    batcher = SpeechBatcher(vad, asr, workers=False, file=file)
    words = []
    for i in range(int(np.ceil(len(audio) / 16000))):
        chunk = VideoChunk(i, float(i), min(i + 1.0, len(audio) / 16000), (),
                           audio[i * 16000:(i + 1) * 16000])
        words += [w for _, ws in batcher.push(chunk) for w in ws]
    words += [w for _, ws in batcher.flush() for w in ws]
    batcher.close()
    return words


def _memory_live(asr, vad, audio: np.ndarray) -> list:
    return _memory(asr, vad, audio, file=False)


def _options(asr) -> dict[str, Any]:
    return {"language": asr.language, "beam_size": asr.beam_size, "word_timestamps": True,
            "vad_filter": True}


def _batched(asr, vad, audio: np.ndarray) -> list:
    from faster_whisper import BatchedInferencePipeline

    pipeline = BatchedInferencePipeline(asr._model)
    segments, _ = pipeline.transcribe(audio, batch_size=BATCH_SIZE,
                                      temperature=list(asr.temperatures), **_options(asr))
    return _words(segments)


def _vad_filter(asr, vad, audio: np.ndarray) -> list:
    segments, _ = asr._model.transcribe(audio, condition_on_previous_text=False,
                                        temperature=list(asr.temperatures), **_options(asr))
    return _words(segments)


def _words(segments) -> list:
    from memory.models.base import Word

    return [Word(w.word.strip(), float(w.start), float(w.end), float(w.probability))
            for s in segments for w in (s.words or []) if w.word.strip()]


_PATHS = {"memory": _memory, "memory_live": _memory_live, "batched": _batched,
          "vad_filter": _vad_filter}
