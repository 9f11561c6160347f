"""Embedded text-to-speech: eSpeak NG through ctypes, from the ``espeakng-loader`` wheel.

The wheel carries ``libespeak-ng.so`` and its voice data, so nothing is installed from
the system or downloaded. eSpeak NG is a process-wide C singleton, so every call goes
through one lock. Output is resampled from eSpeak's 22.05 kHz to 16 kHz mono float32;
word timings come from eSpeak's own WORD events.

Determinism: with ``deterministic=True`` (the default) the same text, voice, rate and
pitch give the same samples in every call and every process (simulated sessions are
replayed and evaluated sample by sample). eSpeak alone does not: synthesizing one
sentence repeatedly showed its noise generator (breath, in the ``+f`` variants) seeded
per process, and five private statics of its wave generator (the pitch-flutter phase
``Flutter_ix``, and ``h_switch_sign``, ``cycle_count``, ``agc``, ``amplitude2`` in
``Wavegen``; no API resets them) carrying over from one utterance to the next, so a
sentence came out a few samples longer or shorter, with other samples, depending on what
was said before it. So before every call the seed is fixed (``espeak_ng_SetRandSeed``)
and those statics are set back to their values right after initialisation, at the
addresses the library's own symbol table gives (`_WavegenState`); the result equals a
synthesis by a freshly initialised engine (tested). A build without those symbols
(stripped) falls back to running each synthesis in a child forked from a helper process
whose eSpeak never spoke: the same samples, at one fork per call (~50-150 ms on a loaded
2-core machine). ``deterministic=False`` synthesizes in-process with neither.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
from functools import lru_cache
from typing import Any, BinaryIO

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

logger = logging.getLogger(__name__)


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
        self.state = _WavegenState.find(self.lib, espeakng_loader.get_library_path())
        self.pristine = True  # restore the state before each call (see the module docstring)

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
        if self.pristine:
            self.lib.espeak_ng_SetRandSeed(ctypes.c_long(0))  # breath noise: same every call
            if self.state is not None:
                self.state.restore()
        data = text.encode("utf-8") + b"\0"
        err = self.lib.espeak_Synth(data, len(data), 0, 0, 0, _CHARS_UTF8, None, None)
        if err != 0:
            raise MemoryToolkitError(f"eSpeak NG failed to synthesize (error {err})")
        self.lib.espeak_Synchronize()
        pcm = np.concatenate(self.samples) if self.samples else np.zeros(0, np.int16)
        return pcm, list(self.words)


class _WavegenState:
    """The wave generator's private statics that outlive an utterance, as they were
    right after initialisation; `restore` writes those values back."""

    NAMES = ("Flutter_ix.", "h_switch_sign.", "cycle_count.", "agc.", "amplitude2.")

    def __init__(self, cells: list[ctypes.c_int]) -> None:
        self._cells = cells
        self._initial = [c.value for c in cells]

    @classmethod
    def find(cls, lib: ctypes.CDLL, path: str) -> _WavegenState | None:
        """Locate the statics (None, with the reason logged, where they cannot be)."""
        try:
            symbols = _elf_symbols(path, ("espeak_Synth", *cls.NAMES))
            base = ctypes.cast(lib.espeak_Synth, ctypes.c_void_p).value - symbols["espeak_Synth"]
        except (OSError, KeyError, ValueError, struct.error) as exc:
            logger.info("eSpeak NG's wave-generator state cannot be located (%s); "
                        "deterministic synthesis forks a process per call", exc)
            return None
        return cls([ctypes.c_int.from_address(base + symbols[n]) for n in cls.NAMES])

    def restore(self) -> None:
        for cell, value in zip(self._cells, self._initial):
            cell.value = value


def _elf_symbols(path: str, wanted: tuple[str, ...]) -> dict[str, int]:
    """Values of symbols in a 64-bit little-endian ELF's ``.symtab``, by name or, for a
    name ending in ".", by prefix (GCC names a function's static ``name.<number>``)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    found: dict[str, int] = {}
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB (a stripped library has only .dynsym: not enough)
            continue
        strtab = sections[sec[6]][4]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name_at, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, off)
            name = data[strtab + name_at:data.index(b"\0", strtab + name_at)].decode("ascii", "replace")
            for w in wanted:
                if value and (name == w or w.endswith(".") and name.startswith(w)):
                    found[w] = value
    missing = [w for w in wanted if w not in found]
    if missing:
        raise KeyError(f"not in the symbol table: {', '.join(missing)}")
    return found


@lru_cache(maxsize=1)
def _engine() -> _Engine:
    return _Engine()


def _deterministic_engine() -> _ForkedEngine | _Engine:
    engine = _engine()
    return engine if engine.state is not None else _forked_engine()


class _ForkedEngine:
    """`_Engine.run` in a child forked per call from a helper whose eSpeak never spoke."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from memory.models.tts import _serve; _serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        atexit.register(self.close)
        self.rate = int(self._reply())

    def run(self, text: str, voice: str, rate: int, pitch: int) -> tuple[np.ndarray, list]:
        if self._proc.poll() is not None:
            raise MemoryToolkitError("the eSpeak NG helper process exited; see its error output")
        _send(self._proc.stdin, (text, voice, rate, pitch))
        return self._reply()

    def _reply(self) -> Any:
        status, value = _receive(self._proc.stdout)
        if status == "error":
            raise MemoryToolkitError(value)
        return value

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()  # the helper exits at the end of its input
            self._proc.wait()


@lru_cache(maxsize=1)
def _forked_engine() -> _ForkedEngine | _Engine:
    if not hasattr(os, "fork"):
        return _engine()
    return _ForkedEngine()


def _send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def _read_exactly(stream: BinaryIO, n: int) -> bytes:
    data = b""
    while len(data) < n:
        part = stream.read(n - len(data))
        if not part:
            break
        data += part
    return data


def _receive(stream: BinaryIO) -> Any:
    header = _read_exactly(stream, 4)
    if len(header) < 4:
        raise MemoryToolkitError("the eSpeak NG helper process exited; see its error output")
    (n,) = struct.unpack("<I", header)
    return pickle.loads(_read_exactly(stream, n))


def _serve() -> None:
    """The helper process: initialise eSpeak once (never speak here), then fork one child
    per request; the child speaks from that pristine state, answers and exits."""
    out, inp = sys.stdout.buffer, sys.stdin.buffer
    try:
        engine = _engine()
    except MemoryToolkitError as exc:
        _send(out, ("error", str(exc)))
        return
    _send(out, ("ok", engine.rate))
    while True:
        header = _read_exactly(inp, 4)
        if len(header) < 4:
            return  # the parent closed our input (or died)
        request = pickle.loads(_read_exactly(inp, struct.unpack("<I", header)[0]))
        pid = os.fork()
        if pid == 0:
            try:
                reply = ("ok", engine.run(*request))
            except MemoryToolkitError as exc:
                reply = ("error", str(exc))
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                reply = ("error", f"eSpeak NG failed: {type(exc).__name__}: {exc}")
            _send(out, reply)
            os._exit(0)
        os.waitpid(pid, 0)


class EspeakSynthesizer:
    """The embedded `SpeechSynthesizer`: eSpeak NG voices, 16 kHz output, word timings.

    ``voice`` takes eSpeak names with an optional variant (``"en-us+f3"``); ``rate`` is
    words per minute (80-450), ``pitch`` 0-99. ``deterministic`` (default): the same
    samples for the same input in every call and process (see the module docstring).
    """

    sample_rate = SAMPLE_RATE

    def __init__(self, voice: str = "en-us", rate: int = 165, pitch: int = 50,
                 deterministic: bool = True) -> None:
        self.voice, self.rate, self.pitch = voice, rate, pitch
        self.deterministic = deterministic

    def synthesize(self, text: str, voice: str | None = None, rate: int | None = None,
                   pitch: int | None = None) -> Speech:
        text = " ".join(text.split())
        if not text:
            return Speech(audio=np.zeros(0, np.float32), words=(), text="")
        with _LOCK:
            engine = _deterministic_engine() if self.deterministic else _engine()
            if isinstance(engine, _Engine):
                engine.pristine = self.deterministic
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
