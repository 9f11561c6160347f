"""The Full-Duplex-Bench (FDB) folder format: sample folders, metadata and transcripts.

Bottom layer of `venus.eval` (plain data and file I/O, no models). FDB v1.5 keeps one
folder per sample under a subset folder::

    {root}/{subset}/{id}/
        input.wav          16 kHz mono user stream, with the overlap
        clean_input.wav    the same stream without the overlap
        metadata.json      {"context_text", "current_turn_text", "timestamps": [start, end]}
        output.wav         the system's speech, sample-aligned with input.wav
        clean_output.wav   the system's speech over clean_input.wav
        output.json        transcript of output.wav: {"text", "chunks": [{"text", "timestamp"}]}

``timestamps`` is the overlap's [start, end] in seconds of ``input.wav``. The v1 sets use
``{task}.json`` files instead (a list of ``{"timestamp": [s, e], ...}``; the v1 user
interruption adds ``"context"`` and ``"interrupt"``), which we also write. FDB makes
``output.json`` with an ASR model; ours is *self-transcribed* (the assistant's own words
at their played times), marked ``"source": "self"`` so it is never mistaken for ASR.
"""

from __future__ import annotations

import json
import wave
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memory.audio import write_wav
from memory.media import SAMPLE_RATE
from venus.errors import ConfigError

__all__ = [
    "OVERLAP_SUBSETS", "SUBSETS", "V1_SUBSETS", "SampleMeta", "TranscriptWord", "read_meta",
    "read_transcript", "read_wav", "sample_dirs", "transcript_doc", "write_json", "write_meta",
    "write_wav",
]

OVERLAP_SUBSETS = ("user_interruption", "user_backchannel", "talking_to_other",
                   "background_speech")
V1_SUBSETS = ("pause_handling", "smooth_turn_taking")
SUBSETS = OVERLAP_SUBSETS + V1_SUBSETS
V1_TASK_FILE = {"user_interruption": "interrupt.json", "pause_handling": "pause.json",
                "smooth_turn_taking": "turn_taking.json"}


@dataclass
class SampleMeta:
    """metadata.json of one sample (FDB v1.5 keys first; ours under ``venus``)."""

    context_text: str
    current_turn_text: str
    timestamps: list[float]
    venus: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TranscriptWord:
    text: str
    start: float
    end: float


def transcript_doc(words: list[TranscriptWord], source: str = "self") -> dict[str, Any]:
    """FDB's transcript schema for ``output.json``, marked with where it came from."""
    return {"text": " ".join(w.text for w in words),
            "chunks": [{"text": w.text, "timestamp": [round(w.start, 3), round(w.end, 3)]}
                       for w in words],
            "source": source}


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def write_meta(folder: Path, subset: str, meta: SampleMeta) -> None:
    """metadata.json and, for the v1 tasks, ``{task}.json`` in FDB v1's layout."""
    write_json(folder / "metadata.json", asdict(meta))
    task_file = V1_TASK_FILE.get(subset)
    if task_file is None:
        return
    entry: dict[str, Any] = {"timestamp": list(meta.timestamps)}
    if subset == "user_interruption":
        entry = {"context": meta.context_text, "interrupt": meta.current_turn_text, **entry}
    write_json(folder / task_file, [entry])


def read_meta(folder: Path) -> SampleMeta:
    try:
        doc = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        return SampleMeta(doc["context_text"], doc["current_turn_text"],
                          [float(x) for x in doc["timestamps"]], doc.get("venus", {}))
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{folder} has no valid FDB metadata.json ({exc}); synthesize it "
                          f"with `venus eval synth`") from None


def read_transcript(path: Path) -> list[TranscriptWord]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [TranscriptWord(c["text"], float(c["timestamp"][0]), float(c["timestamp"][1]))
            for c in doc.get("chunks", [])]


def sample_dirs(root: Path, subset: str) -> list[Path]:
    where = Path(root) / subset
    return sorted(p for p in where.iterdir() if (p / "metadata.json").is_file()) if where.is_dir() else []


def read_wav(path: Path) -> np.ndarray:
    """A 16 kHz mono 16-bit WAV as float32 (the only format FDB uses)."""
    try:
        with wave.open(str(path), "rb") as fh:
            if fh.getframerate() != SAMPLE_RATE or fh.getnchannels() != 1 or fh.getsampwidth() != 2:
                raise ConfigError(f"{path} must be 16 kHz mono 16-bit PCM (FDB's format); "
                                  f"resample it first")
            raw = fh.readframes(fh.getnframes())
    except (OSError, wave.Error, EOFError) as exc:
        raise ConfigError(f"cannot read {path} as WAV ({exc}); check the file") from None
    return np.frombuffer(raw, "<i2").astype(np.float32) / 32767.0
