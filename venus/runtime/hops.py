"""Audio hops: the floor is decided on short hops, the memory keeps one-second chunks.

Data layer of the runtime (below the session). A source yields `memory.media.VideoChunk`s
of any length up to a second: a file or a simulated stream yields whole seconds, a live
microphone yields hops as they are captured. The session decides the floor on hops of
``hop_s`` (`split_hops` cuts a longer chunk sample-exactly; a frame goes with the hop its
time falls in), and `ChunkTally` puts the hops back together into the one-second chunks
the timeline records (`venus.events.ChunkReceived`, one control token per chunk), which
stay the unit of the video memory and of model frontends: a frontend that decides per
chunk gets the chunk's hops as one frame (`merge_frames`), while the runtime's own gate
still acts on every hop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk, as_audio
from venus.errors import ConfigError
from venus.frontend.base import DuplexFrame
from venus.perception.types import PerceptionFrame

__all__ = ["ChunkTally", "check_hop", "merge_frames", "split_hops"]

_EPS = 1e-6


def check_hop(hop_s: float) -> float:
    """``hop_s`` if it is a valid hop: more than 0, at most a second, and a whole number
    of samples that divides a second (so hops never straddle a chunk boundary)."""
    samples = hop_s * SAMPLE_RATE
    if not 0.0 < hop_s <= 1.0 or abs(samples - round(samples)) > 1e-6 \
            or SAMPLE_RATE % round(samples):
        raise ConfigError(f"hop_s must divide one second into whole samples (0.02, 0.05, 0.1, "
                          f"0.2, 0.25, 0.5 or 1.0 s), got {hop_s}")
    return hop_s


def split_hops(chunk: VideoChunk, hop_s: float) -> list[VideoChunk]:
    """``chunk`` cut into hops of ``hop_s`` (the last one shorter when the chunk is), each
    keeping the chunk's index; a chunk no longer than a hop comes back as it is."""
    if chunk.duration <= hop_s + _EPS:
        return [chunk]
    audio = as_audio(chunk.audio)
    n = max(1, math.ceil(chunk.duration / hop_s - _EPS))
    hops: list[VideoChunk] = []
    for i in range(n):
        start = chunk.start + i * hop_s
        end = min(chunk.end, start + hop_s)
        a = round((start - chunk.start) * SAMPLE_RATE)
        b = len(audio) if i == n - 1 else round((end - chunk.start) * SAMPLE_RATE)
        last = i == n - 1
        frames = tuple(f for f in chunk.frames
                       if start - _EPS <= f.time < end - _EPS or (last and f.time >= end - _EPS)
                       or (i == 0 and f.time < start))
        hops.append(VideoChunk(chunk.index, start, end, frames, audio[a:b], chunk.has_audio,
                               chunk.cues if i == 0 else ()))
    return hops


@dataclass
class ChunkTally:
    """The one-second chunk the hops since the last complete one belong to."""

    index: int | None = None
    start: float = 0.0
    end: float = 0.0
    has_audio: bool = False
    frames: int = 0
    tokens: list = field(default_factory=list)  # the hops' control tokens, in order
    recorded: bool = False  # the chunk was recorded (its completing hop came)

    def add(self, hop: VideoChunk) -> None:
        if self.index != hop.index:
            self.index, self.start, self.has_audio, self.frames = hop.index, hop.start, False, 0
            self.tokens, self.recorded = [], False
        self.end = hop.end
        self.has_audio = self.has_audio or hop.has_audio
        self.frames += len(hop.frames)

    def completes(self, hop: VideoChunk, last_of_split: bool) -> bool:
        """Whether ``hop`` ends its chunk: the last hop of a split chunk, or a hop (from a
        source of hops) that reaches the next whole second of its chunk."""
        if last_of_split or hop.duration >= 1.0 - _EPS:
            return True
        return hop.end + _EPS >= math.floor(self.start + _EPS) + 1.0



def merge_frames(frames: list[DuplexFrame]) -> DuplexFrame:
    """The hops of one chunk as one frame, for a frontend that decides per chunk: the
    chunk's audio and frames, every boundary and final word in order, the state (speaking,
    partial words, the open overlap, what was heard) as at the last hop."""
    if len(frames) == 1:
        return frames[0]
    first, last = frames[0], frames[-1]
    chunks = [f.chunk for f in frames]
    chunk = VideoChunk(first.chunk.index, first.chunk.start, last.chunk.end,
                       tuple(x for c in chunks for x in c.frames),
                       np.concatenate([as_audio(c.audio) for c in chunks]),
                       any(c.has_audio for c in chunks), first.chunk.cues)
    perceived = [f.perception for f in frames if f.perception is not None]
    closed = next((f.closed for f in frames if f.closed is not None), None)
    return DuplexFrame(chunk, _merge_perception(perceived) if perceived else None,
                       last.overlap, last.speaking, last.heard, closed)


def _merge_perception(frames: list[PerceptionFrame]) -> PerceptionFrame:
    first, last = frames[0], frames[-1]
    voiced = [f for f in frames if f.prosody.rms_db is not None]
    faces = [f for f in frames if f.faces is not None]
    return PerceptionFrame(
        chunk_index=first.chunk_index, start=first.start, end=last.end,
        speech_probability=max(f.speech_probability for f in frames), speaking=last.speaking,
        boundaries=tuple(b for f in frames for b in f.boundaries),
        partial_words=last.partial_words,
        final_words=tuple(w for f in frames for w in f.final_words),
        transcribing=last.transcribing, turn_open=last.turn_open,
        turn_ends=tuple(t for f in frames for t in f.turn_ends),
        prosody=voiced[-1].prosody if voiced else last.prosody, cues=last.cues,
        faces=faces[-1].faces if faces else None,
        face_toward_camera=faces[-1].face_toward_camera if faces else None)
