"""Has the user finished their turn? Smart Turn v3.2 reads it from the audio alone.

A layer of perception beside ``speech`` (it imports only ``memory`` and ``venus.clock``).
Silence after speech says only that the user paused; Smart Turn (Daily's BSD-2 model, a
Whisper-encoder classifier in ONNX) hears whether the words and the intonation so far end
a turn ("What is the capital of France?") or trail off mid-phrase ("What is the capital
of the"), so a reply can start on a short pause instead of a long one.

`SmartTurn` is the embedded `EndOfTurnModel`: it runs ``smart-turn-v3.2-cpu.onnx`` with
onnxruntime on one thread. The file comes from the ``pipecat-ai`` wheel, unzipped at setup
by ``scripts/turn_model.sh`` into ``{sys.prefix}/share/venus/turn`` (``VENUS_TURN_DATA``
overrides the folder); pipecat itself is never installed. The model hears the last 8 s of
16 kHz audio (shorter turns are padded with silence in front), as 80 Whisper log-mel bands
computed here in numpy, and returns the probability that the turn is complete::

    from venus.perception import SmartTurn

    turn = SmartTurn()                        # the session opens on the first predict
    verdict = turn.predict(user_audio)        # 16 kHz mono float32, the turn so far
    if verdict.complete:                      # probability > threshold (0.5)
        reply()
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memory.errors import AudioFormatError, ModelUnavailableError
from memory.media import SAMPLE_RATE
from venus.clock import perf_seconds

__all__ = [
    "DEFAULT_THRESHOLD",
    "MODEL_FILE",
    "TURN_WINDOW_SECONDS",
    "EndOfTurnModel",
    "SmartTurn",
    "TurnPrediction",
    "turn_model_path",
    "turn_window",
    "whisper_log_mel",
]

MODEL_FILE = "smart-turn-v3.2-cpu.onnx"
TURN_WINDOW_SECONDS = 8  # the model's fixed input: the last 8 s of the turn
DEFAULT_THRESHOLD = 0.5  # pipecat's: complete when the probability is above it

# Whisper's front end (transformers' WhisperFeatureExtractor with chunk_length=8).
_N_FFT = 400  # 25 ms windows
_HOP = 160  # 10 ms apart
_N_MELS = 80
_LOG_FLOOR = 1e-10
_DYNAMIC_RANGE = 8.0  # log10 units kept below the loudest bin (80 dB)


@dataclass(frozen=True)
class TurnPrediction:
    """One verdict on the turn so far; ``seconds`` is the wall time the model took."""

    complete: bool
    probability: float
    seconds: float


@runtime_checkable
class EndOfTurnModel(Protocol):
    """Says whether 16 kHz mono float32 audio of the user's turn so far ends the turn."""

    def predict(self, audio: np.ndarray) -> TurnPrediction: ...


def turn_model_path() -> Path:
    """Where ``scripts/turn_model.sh`` puts the model (``VENUS_TURN_DATA`` overrides)."""
    folder = os.environ.get("VENUS_TURN_DATA") or Path(sys.prefix) / "share" / "venus" / "turn"
    return Path(folder) / MODEL_FILE


def turn_window(audio: np.ndarray) -> np.ndarray:
    """The last 8 s of ``audio``, padded with zeros in front when the turn is shorter."""
    size = TURN_WINDOW_SECONDS * SAMPLE_RATE
    tail = np.asarray(audio[-size:], dtype=np.float32)
    return np.concatenate([np.zeros(size - tail.size, np.float32), tail])


def _slaney_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above."""
    log_part = 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) * 27.0 / np.log(6.4)
    return np.where(hz < 1000.0, hz * 3.0 / 200.0, log_part)


def _slaney_hz(mel: np.ndarray) -> np.ndarray:
    return np.where(mel < 15.0, mel * 200.0 / 3.0, 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0))


@lru_cache(maxsize=1)
def _mel_filters() -> np.ndarray:
    """(80, 201) triangles evenly spaced in Slaney mels over 0-8 kHz, each of unit area."""
    edges = _slaney_hz(np.linspace(0.0, _slaney_mel(np.array(SAMPLE_RATE / 2.0)), _N_MELS + 2))
    bins = np.linspace(0.0, SAMPLE_RATE // 2, _N_FFT // 2 + 1)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins - lower) / (centre - lower)
    falling = (upper - bins) / (upper - centre)
    triangles = np.clip(np.minimum(rising, falling), 0.0, None)
    return triangles * (2.0 / (upper - lower))


@lru_cache(maxsize=1)
def _hann() -> np.ndarray:
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(_N_FFT) / _N_FFT)  # periodic


def whisper_log_mel(window: np.ndarray) -> np.ndarray:
    """Whisper's log-mel features of one model window: (80, samples // 160) float32.

    The waveform is normalised to zero mean and unit variance first (the feature
    extractor's ``do_normalize=True``, which Smart Turn was trained with); frames are
    centred (reflect padding) and the last one is dropped, as Whisper does.
    """
    x = window.astype(np.float32)
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    padded = np.pad(x.astype(np.float64), _N_FFT // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, _N_FFT)[::_HOP][:-1]
    power = np.abs(np.fft.rfft(frames * _hann(), axis=1)) ** 2
    log_mel = np.log10(np.maximum(_mel_filters() @ power.T, _LOG_FLOOR))
    log_mel = np.maximum(log_mel, log_mel.max() - _DYNAMIC_RANGE)
    return ((log_mel + 4.0) / 4.0).astype(np.float32)


class SmartTurn:
    """Smart Turn v3.2 on onnxruntime: `EndOfTurnModel`'s embedded default.

    ``threshold``: complete when the probability is above it (pipecat's 0.5).
    ``threads``: onnxruntime's intra-op threads (one: the live loop shares the CPU).
    The session is created on the first `predict` (or `load`) and shared by every thread
    that calls `predict` (onnxruntime's ``run`` is thread-safe).
    """

    def __init__(self, model_path: str | Path | None = None, *,
                 threshold: float = DEFAULT_THRESHOLD, threads: int = 1) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be between 0 and 1, not {threshold}")
        self.model_path = Path(model_path) if model_path is not None else turn_model_path()
        self.threshold = threshold
        self.threads = threads
        self._session: Any = None
        self._lock = threading.Lock()

    def load(self) -> SmartTurn:
        """Open the ONNX session now (else the first `predict` does); returns ``self``."""
        with self._lock:
            if self._session is None:
                self._session = self._open()
        return self

    def _open(self) -> Any:
        if not self.model_path.is_file():
            raise ModelUnavailableError(
                f"no Smart Turn model at {self.model_path}: run 'bash scripts/setup.sh' (it "
                f"unzips {MODEL_FILE} from the pipecat-ai wheel), or set VENUS_TURN_DATA to "
                f"the folder that holds it")
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only
        try:
            return ort.InferenceSession(str(self.model_path), sess_options=options,
                                        providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail / InvalidProtobuf
            raise ModelUnavailableError(
                f"onnxruntime could not read {self.model_path} ({exc}); delete it and run "
                f"'bash scripts/setup.sh' to unzip it again") from exc

    def predict(self, audio: np.ndarray) -> TurnPrediction:
        """The verdict on ``audio``, 16 kHz mono float32 of the user's turn so far."""
        audio = np.asarray(audio)
        if audio.ndim != 1 or not np.issubdtype(audio.dtype, np.floating):
            raise AudioFormatError(f"Smart Turn needs 1-D float audio at 16 kHz, got "
                                   f"{audio.dtype} of shape {audio.shape}")
        session = self._session if self._session is not None else self.load()._session
        began = perf_seconds()
        features = whisper_log_mel(turn_window(audio))[None]
        (probability,) = session.run(None, {"input_features": features})[0].reshape(-1)
        seconds = perf_seconds() - began
        return TurnPrediction(complete=bool(probability > self.threshold),
                              probability=float(probability), seconds=seconds)
