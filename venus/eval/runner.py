"""Running a system under test over FDB sample folders, as a live stream in simulated time.

Composition layer of `venus.eval` (above `fdb`): `stream_audio` feeds a 16 kHz signal to
the assistant (`venus.assistant`: the embedded frontend, its `AudioSpeechOutput` and the
built-in capabilities) one second at a time on a `SimulatedClock`, exactly as a live
microphone would (the session never sees a chunk before its time; an optional video
track adds frames), answering from a `memory.NotesMemory` of the notes
(`venus.eval.notes`). `run_sample` does it for one folder's ``input.wav`` (and
``clean_input.wav`` unless ``clean_output.wav`` already exists) and writes
``output.wav`` (sample-aligned: same start, same length), ``output.json`` (the assistant's
own words at their played times, FDB's transcript schema, ``"source": "self"``) and
``timeline.jsonl``.

The assistant speaks eSpeak NG here (`venus.speech.synthesis.espeak_voice`), not the
app's Piper voice: Piper's ``en_US-joe-medium`` is one of the simulated users' voice
families on the tuning split (`venus.eval.voices`), so the assistant would talk in a
user's own voice; and the published figures were tuned with it. Piper is deterministic
too (noise scales 0: the same samples in every call and process), so the choice is about
what is measured, not about replay.

Word times: the output knows which words of each utterance were heard; their times are
laid over the voiced 10 ms frames of that utterance's stretch of ``output.wav`` in
proportion to their length (pauses and ducks included), accurate to about a word.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk
from venus.eval.fdb import TranscriptWord, read_wav, transcript_doc, write_json, write_wav
from venus.eval.notes import DEFAULT_NOTES as NOTES

__all__ = ["StreamRun", "assistant_words", "run_sample", "stream_audio"]

logger = logging.getLogger(__name__)

@dataclass
class StreamRun:
    """One streamed signal: the aligned output, the assistant's words and the timeline."""

    output_audio: np.ndarray
    words: list[TranscriptWord]
    timeline: Any
    frontend: Any


class _AudioSource:
    """One-second chunks of a fixed signal (and frames of an optional video track)."""

    def __init__(self, audio: np.ndarray, video: str | None = None) -> None:
        self.audio = audio
        self.video = video

    def __iter__(self) -> Iterator[VideoChunk]:
        frames = self._frames()
        n = -(-len(self.audio) // SAMPLE_RATE)
        for i in range(n):
            piece = np.zeros(SAMPLE_RATE, np.float32)
            part = self.audio[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]
            piece[:len(part)] = part
            v = next(frames, None) if frames is not None else None
            yield VideoChunk(i, float(i), float(i + 1), v.frames if v is not None else (), piece, True)

    def _frames(self):
        if not self.video:
            return None
        from memory.video import open_video

        return iter(open_video(self.video, fps=1.0))


def _memory(notes: list[dict[str, Any]], models):
    from memory import NotesMemory
    from venus.factory import shared_models

    return NotesMemory(notes, embedder=(models or shared_models()).embedder)


def stream_audio(audio: np.ndarray, *, models=None, video: str | None = None,
                 notes: list[dict[str, Any]] | None = None, mode: str = "omni",
                 timeline_path: Path | None = None, session_id: str = "fdb") -> StreamRun:
    """Run the assistant (`venus.assistant`) over ``audio`` as a live stream in simulated time."""
    from venus.clock import SimulatedClock
    from venus.factory import AssistantOptions, assistant, shared_models
    from venus.runtime import SessionOptions
    from venus.speech.synthesis import espeak_voice
    from venus.timeline import Timeline

    memory = _memory(notes if notes is not None else NOTES, models)
    if timeline_path is not None:
        timeline_path.unlink(missing_ok=True)
    timeline = Timeline(session_id, timeline_path)
    options = AssistantOptions(session=SessionOptions(drain_s=1.0))
    models = (models or shared_models()).with_voice(espeak_voice())  # see the docstring
    with assistant(memory, mode=mode, clock=SimulatedClock(), timeline=timeline,
                   session_id=session_id, options=options, models=models) as session:
        session.run(_AudioSource(audio, video))
    output = session.speech
    played = np.zeros(len(audio), np.float32)
    wave = output.waveform()
    played[:min(len(audio), len(wave))] = wave[:len(audio)]
    return StreamRun(played, assistant_words(output, timeline, played), timeline,
                     session.frontend)


def assistant_words(output, timeline, played: np.ndarray) -> list[TranscriptWord]:
    """The heard words of every utterance, timed over its voiced output frames."""
    from venus.events import PlaybackAcknowledged, SpeechStopped

    ends: dict[str, float] = {}
    for entry in timeline:
        ev = entry.event
        if isinstance(ev, (SpeechStopped, PlaybackAcknowledged)) and ev.utterance_id not in ends:
            ends[ev.utterance_id] = entry.time
    total = len(played) / SAMPLE_RATE
    words: list[TranscriptWord] = []
    starts = sorted(output.started, key=lambda s: s[1])
    for k, (uid, start) in enumerate(starts):
        heard = output.heard.get(uid)
        text = heard.heard_text if heard is not None else ""
        nxt = starts[k + 1][1] if k + 1 < len(starts) else total
        end = min(ends.get(uid, nxt), nxt, total)
        if text and end > start:
            words += _lay_words(text.split(), played, start, end)
    return words


def _lay_words(tokens: list[str], played: np.ndarray, start: float, end: float) -> list[TranscriptWord]:
    frame = SAMPLE_RATE // 100
    a, b = int(start * SAMPLE_RATE), int(end * SAMPLE_RATE)
    seg = played[a:b]
    n = len(seg) // frame
    if n == 0:
        return []
    voiced = np.flatnonzero(np.abs(seg[:n * frame]).reshape(n, frame).max(axis=1) > 1e-3)
    if len(voiced) == 0:
        return []
    weights = np.array([len(t) + 1 for t in tokens], float)
    edges = np.concatenate([[0], np.cumsum(weights)]) / weights.sum() * (len(voiced) - 1)
    out = []
    for tok, lo, hi in zip(tokens, edges[:-1], edges[1:]):
        s = start + voiced[round(lo)] / 100
        e = start + (voiced[round(hi)] + 1) / 100
        out.append(TranscriptWord(tok, s, max(e, s + 0.01)))
    return out


def run_sample(folder: Path, *, models=None, video: str | None = None, clean: bool = True,
               notes: list[dict[str, Any]] | None = None) -> StreamRun:
    """Write output.wav/output.json/timeline.jsonl for ``folder`` (and the clean pair);
    ``notes`` is what the assistant knows (default: `venus.eval.notes.DEFAULT_NOTES`)."""
    folder = Path(folder)
    same = (folder / "input.wav").read_bytes() == (folder / "clean_input.wav").read_bytes()
    if clean and not same and not (folder / "clean_output.wav").exists():
        run_clean(folder, models=models, video=video, notes=notes)
    run = stream_audio(read_wav(folder / "input.wav"), models=models, video=video, notes=notes,
                       timeline_path=folder / "timeline.jsonl", session_id=folder.name)
    write_wav(folder / "output.wav", run.output_audio)
    write_json(folder / "output.json", transcript_doc(run.words))
    if clean and same:  # the v1 sets: the input has no overlap, so the clean run is this one
        write_wav(folder / "clean_output.wav", run.output_audio)
        write_json(folder / "clean_output.json", transcript_doc(run.words))
    return run


def run_clean(folder: Path, *, models=None, video: str | None = None,
              notes: list[dict[str, Any]] | None = None) -> StreamRun:
    """clean_output.wav / clean_output.json from clean_input.wav."""
    run = stream_audio(read_wav(folder / "clean_input.wav"), models=models, video=video, notes=notes,
                       session_id=f"{folder.name}-clean")
    write_wav(folder / "clean_output.wav", run.output_audio)
    write_json(folder / "clean_output.json", transcript_doc(run.words))
    return run
