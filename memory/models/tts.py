"""Embedded text-to-speech: eSpeak NG through ctypes, from the ``espeakng-loader`` wheel.

The wheel carries ``libespeak-ng.so`` and its voice data, so nothing is installed from
the system or downloaded. eSpeak NG is a process-wide C singleton, so every call goes
through one lock. Output is resampled from eSpeak's 22.05 kHz to 16 kHz mono float32;
word timings come from eSpeak's own WORD events.
"""

from __future__ import annotations

import ctypes
import threading
from functools import lru_cache

import numpy as np

from memory.audio import resample
from memory.errors import MemoryToolkitError, ModelUnavailableError
from memory.media import SAMPLE_RATE
from memory.models.base import Speech, Word

__all__ = ["EspeakSynthesizer", "VOICES"]

VOICES: tuple[str, ...] = (
    "en-us", "en-us+f2", "en-us+m3", "en-us+f4", "en", "en+m7", "en-gb-x-rp+f3",
    "en-us+m5", "en-029+f1", "en-gb-scotland+m2",
)
"""Distinct English voices (voice+variant) used for synthetic speakers."""

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INIT_DONT_EXIT = 0x8000
_CHARS_UTF8 = 1
_EVENT_WORD = 1
_PARAM_RATE, _PARAM_VOLUME, _PARAM_PITCH = 1, 2, 3
_LOCK = threading.Lock()


class _EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int,
                             ctypes.POINTER(_Event))


class _Engine:
    """The loaded library, its native sample rate and the buffers of the current call."""

    def __init__(self) -> None:
        try:
            import espeakng_loader
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ModelUnavailableError(
                "text-to-speech needs the 'espeakng-loader' package: pip install espeakng-loader"
            ) from exc
        try:
            self.lib = ctypes.CDLL(espeakng_loader.get_library_path())
        except OSError as exc:
            raise ModelUnavailableError(f"could not load libespeak-ng from espeakng-loader: {exc}") from exc
        data_dir = espeakng_loader.get_data_path()
        self.lib.espeak_Initialize.restype = ctypes.c_int
        self.rate = self.lib.espeak_Initialize(
            _AUDIO_OUTPUT_SYNCHRONOUS, 0, data_dir.encode(), _INIT_DONT_EXIT)
        if self.rate <= 0:
            raise ModelUnavailableError(f"eSpeak NG failed to initialise with data at {data_dir}")
        self.samples: list[np.ndarray] = []
        self.words: list[tuple[int, int, int]] = []  # (text_position, length, ms)
        self._callback = _CALLBACK(self._on_audio)  # keep a reference: C holds the pointer
        self.lib.espeak_SetSynthCallback(self._callback)

    def _on_audio(self, wav, count, events) -> int:
        if count > 0:
            self.samples.append(np.ctypeslib.as_array(wav, shape=(count,)).copy())
        i = 0
        while events[i].type != 0:
            ev = events[i]
            if ev.type == _EVENT_WORD:
                self.words.append((ev.text_position, ev.length, ev.audio_position))
            i += 1
        return 0

    def run(self, text: str, voice: str, rate: int, pitch: int) -> tuple[np.ndarray, list]:
        self.samples, self.words = [], []
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise MemoryToolkitError(f"eSpeak NG has no voice {voice!r}; try one of {VOICES}")
        self.lib.espeak_SetParameter(_PARAM_RATE, int(rate), 0)
        self.lib.espeak_SetParameter(_PARAM_PITCH, int(pitch), 0)
        self.lib.espeak_SetParameter(_PARAM_VOLUME, 100, 0)
        data = text.encode("utf-8") + b"\0"
        err = self.lib.espeak_Synth(data, len(data), 0, 0, 0, _CHARS_UTF8, None, None)
        if err != 0:
            raise MemoryToolkitError(f"eSpeak NG failed to synthesize (error {err})")
        self.lib.espeak_Synchronize()
        pcm = np.concatenate(self.samples) if self.samples else np.zeros(0, np.int16)
        return pcm, list(self.words)


@lru_cache(maxsize=1)
def _engine() -> _Engine:
    return _Engine()


class EspeakSynthesizer:
    """The embedded `SpeechSynthesizer`: eSpeak NG voices, 16 kHz output, word timings.

    ``voice`` takes eSpeak names with an optional variant (``"en-us+f3"``); ``rate`` is
    words per minute (80-450), ``pitch`` 0-99.
    """

    sample_rate = SAMPLE_RATE

    def __init__(self, voice: str = "en-us", rate: int = 165, pitch: int = 50) -> None:
        self.voice, self.rate, self.pitch = voice, rate, pitch

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech:
        text = " ".join(text.split())
        if not text:
            return Speech(audio=np.zeros(0, np.float32), words=(), text="")
        with _LOCK:
            engine = _engine()
            pcm, events = engine.run(text, voice or self.voice, rate or self.rate,
                                     self.pitch if pitch is None else pitch)
            native = engine.rate
        audio = resample(pcm.astype(np.float32) / 32768.0, native, SAMPLE_RATE)
        return Speech(audio=audio, words=_words(text, events, len(audio) / SAMPLE_RATE), text=text)


def _words(text: str, events: list[tuple[int, int, int]], duration: float) -> tuple[Word, ...]:
    """Word timings from eSpeak WORD events: a word ends where the next begins."""
    raw = text.encode("utf-8")
    starts = [ms / 1000.0 for _, _, ms in events]
    out = []
    for i, (pos, length, _) in enumerate(events):
        # text_position is 1-based and counts bytes of the UTF-8 input
        token = raw[pos - 1: pos - 1 + length].decode("utf-8", "replace").strip()
        end = starts[i + 1] if i + 1 < len(events) else duration
        if token:
            out.append(Word(token, starts[i], max(starts[i], end)))
    return tuple(out)
