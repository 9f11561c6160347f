"""Embedded voice activity detection: Silero VAD's ONNX model run with onnxruntime.

The model file comes from the ``silero-vad`` wheel, found with ``importlib.util.find_spec``
*without importing* ``silero_vad``: importing it calls ``torch.set_num_threads(1)`` for
the whole process, which would silently slow every other torch model. onnxruntime runs
it on one intra-op thread (the model is tiny and recurrent: more threads only add
overhead). The session is stateless (the recurrent state is an input), so one session
per process is shared by every detector and stream.

The same wheel carries the model exported for a *sequence* of windows
(``silero_vad_16k_sequence.onnx``: N windows with their context in, N probabilities and
the LSTM state out). It gives the same probabilities, bit for bit, as one call per 32 ms
window (tested), so `VADStream.feed` scores every window it completes in one call: on
an hour of lecture audio that is ~15 calls per minute instead of ~1900, and most of the
VAD's cost was per-call overhead. A model without the sequence file beside it (an older
wheel, or ``model_path=``) runs window by window.

`VADStream` owns the streaming state (recurrent state, 64-sample context, leftover
samples) in one object; `SileroSpeechDetector.detect` is the offline pass over the same
state machine, so both give identical probabilities on the same samples.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.media import SAMPLE_RATE, as_audio
from memory.models.base import SpeechRegion

__all__ = ["WINDOW_SAMPLES", "WINDOW_SECONDS", "SileroSpeechDetector", "VADStream",
           "default_vad_path"]

logger = logging.getLogger(__name__)

WINDOW_SAMPLES = 512
"""Samples per speech probability at 16 kHz (32 ms), fixed by the Silero model."""
WINDOW_SECONDS = WINDOW_SAMPLES / SAMPLE_RATE
_CONTEXT_SAMPLES = 64  # the model sees the last 64 samples of the previous window too
_STATE_SHAPE = (2, 1, 128)


def default_vad_path() -> Path:
    """``silero_vad/data/silero_vad.onnx`` in the installed wheel (not imported)."""
    spec = importlib.util.find_spec("silero_vad")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            "voice activity detection needs the 'silero-vad' package: pip install silero-vad "
            "(or pass model_path= to a silero_vad.onnx file)")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "silero_vad.onnx"


_SEQUENCE_FILE = "silero_vad_16k_sequence.onnx"


@lru_cache(maxsize=4)
def _session(path: str) -> _Silero:
    if not Path(path).is_file():
        raise ModelUnavailableError(
            f"no Silero VAD model at {path}: reinstall silero-vad (pip install --force-reinstall "
            f"silero-vad) or pass model_path= to a silero_vad.onnx file")
    sequence = Path(path).with_name(_SEQUENCE_FILE)
    return _Silero(_onnx(path), _onnx(str(sequence)) if sequence.is_file() else None)


def _onnx(path: str) -> Any:
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ModelUnavailableError(
            "voice activity detection needs onnxruntime: pip install onnxruntime") from exc
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # errors only: its graph-optimisation notes are not ours
    try:
        return ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise ModelUnavailableError(
            f"could not load the Silero VAD model at {path} ({exc}); pass model_path= to a "
            f"valid silero_vad.onnx file") from exc


@dataclass(frozen=True)
class _Silero:
    """The per-window session and, when the wheel has it, the sequence session."""

    window: Any
    sequence: Any | None = None

    def run(self, rows: np.ndarray, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities of ``rows`` (N x (context + window)) in order, and the state after
        them; the state is (2, 1, 128): the LSTM's h and c."""
        if self.sequence is not None:
            probs, h, c = self.sequence.run(None, {"input": rows, "h": state[:1],
                                                   "c": state[1:]})
            return np.asarray(probs, np.float32).reshape(-1), np.concatenate([h, c])
        sr = np.array(SAMPLE_RATE, dtype=np.int64)
        probs = np.empty(len(rows), np.float32)
        for i, row in enumerate(rows):
            out, state = self.window.run(None, {"input": row[None, :], "state": state, "sr": sr})
            probs[i] = out.reshape(-1)[0]
        return probs, state


class VADStream:
    """Streaming speech probabilities, one per 32 ms window, over audio fed in any sizes.

    Samples that do not fill a window wait for the next `feed`. ``position`` is the media
    time (seconds from the first sample fed) covered by the probabilities returned so
    far: the next probability is for ``[position, position + 0.032)``.
    """

    def __init__(self, session: _Silero) -> None:
        self._session = session
        self.reset()

    def reset(self) -> None:
        """Forget everything heard (cheap: a few small arrays)."""
        self._state = np.zeros(_STATE_SHAPE, np.float32)
        self._context = np.zeros(_CONTEXT_SAMPLES, np.float32)
        self._pending = np.zeros(0, np.float32)
        self._windows = 0

    @property
    def position(self) -> float:
        return self._windows * WINDOW_SECONDS

    @property
    def buffered(self) -> int:
        """Samples waiting for a full window."""
        return len(self._pending)

    def feed(self, samples: np.ndarray, sample_rate: int = SAMPLE_RATE) -> list[float]:
        """Add 16 kHz mono samples; return the probability of each window completed.

        ``sample_rate`` is only checked: anything but 16 kHz is an `AudioFormatError`.
        """
        audio = np.concatenate([self._pending, as_audio(samples, sample_rate)])
        n_full = len(audio) // WINDOW_SAMPLES
        self._pending = audio[n_full * WINDOW_SAMPLES:].copy()
        if n_full == 0:
            return []
        windows = audio[:n_full * WINDOW_SAMPLES].reshape(n_full, WINDOW_SAMPLES)
        context = np.empty((n_full, _CONTEXT_SAMPLES), np.float32)
        context[0] = self._context
        context[1:] = windows[:-1, -_CONTEXT_SAMPLES:]
        rows = np.concatenate([context, windows], axis=1)
        probs, self._state = self._session.run(rows, self._state)
        self._context = windows[-1, -_CONTEXT_SAMPLES:].copy()
        self._windows += n_full
        return probs.tolist()


@dataclass(frozen=True)
class _Segmenter:
    """Turns window probabilities into regions: hysteresis, gap merging, min length, pad."""

    threshold: float
    min_speech_s: float
    min_silence_s: float
    pad_s: float

    def regions(self, probs: list[float], duration: float) -> list[SpeechRegion]:
        raw = self._hysteresis(probs)
        merged: list[list[float]] = []
        for start, end in raw:
            if merged and start - merged[-1][1] < self.min_silence_s:
                merged[-1][1] = end
            else:
                merged.append([start, end])
        kept = [(s, e) for s, e in merged if e - s >= self.min_speech_s]
        return [SpeechRegion(max(0.0, s - self.pad_s), min(duration, e + self.pad_s))
                for s, e in kept]

    def _hysteresis(self, probs: list[float]) -> list[tuple[float, float]]:
        # Enter speech at `threshold`, leave below `threshold - 0.15` (Silero's own rule),
        # so a word's quiet tail does not split it.
        exit_level = max(self.threshold - 0.15, 0.01)
        out, start = [], None
        for i, p in enumerate(probs):
            if start is None and p >= self.threshold:
                start = i
            elif start is not None and p < exit_level:
                out.append((start * WINDOW_SECONDS, i * WINDOW_SECONDS))
                start = None
        if start is not None:
            out.append((start * WINDOW_SECONDS, len(probs) * WINDOW_SECONDS))
        return out


class SileroSpeechDetector:
    """The embedded `SpeechDetector`: Silero VAD (ONNX) over 16 kHz mono float32 audio.

    ``threshold`` is the speech probability that starts a region; regions shorter than
    ``min_speech_s`` are dropped, gaps shorter than ``min_silence_s`` are bridged, and
    each region is widened by ``pad_s`` on both sides (clipped to the audio).
    """

    def __init__(self, threshold: float = 0.5, min_speech_s: float = 0.25,
                 min_silence_s: float = 0.3, pad_s: float = 0.05,
                 model_path: str | None = None) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        path = Path(model_path).expanduser() if model_path else default_vad_path()
        self.model_path = str(path)
        self._session = _session(self.model_path)
        self.threshold = threshold
        self._segmenter = _Segmenter(threshold, min_speech_s, min_silence_s, pad_s)

    def stream(self) -> VADStream:
        """A fresh streaming state (one per live audio source)."""
        return VADStream(self._session)

    def probabilities(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
        """Speech probability per 32 ms window; a final partial window is zero-padded."""
        audio = as_audio(audio, sample_rate)
        tail = (-len(audio)) % WINDOW_SAMPLES
        padded = np.pad(audio, (0, tail)) if tail else audio
        return np.asarray(self.stream().feed(padded), dtype=np.float32)

    def detect(self, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> list[SpeechRegion]:
        """Speech regions in ``audio`` (seconds from its first sample).

        ``sample_rate`` is only checked: anything but 16 kHz is an `AudioFormatError`.
        """
        audio = as_audio(audio, sample_rate)
        probs = self.probabilities(audio).tolist()
        return self._segmenter.regions(probs, len(audio) / SAMPLE_RATE)

    def regions_from(self, probs: list[float], duration: float) -> list[SpeechRegion]:
        """Regions from probabilities already computed (for example by a `VADStream`)."""
        return self._segmenter.regions(list(probs), duration)
