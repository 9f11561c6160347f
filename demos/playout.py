"""`PlayoutStream`: the reply's audio as a stream a remote sink (the page) plays.

Below `demos.link` (no Gradio, no sockets). The session's speech output
(`venus.speech.AudioSpeechOutput`) keeps one waveform on session time, sample for
sample with the microphone's input (session time t is heard at wall time t); the page
should play exactly that, ``lead_s`` ahead of the session's own commits so that it
plays on time although the session commits in hops. Each `step` (once per hop, on the
session's thread, after the hop's decisions) compares what the output will play over
the next ``lead_s`` (`OutputControl.preview`) with what was already sent:

* audio not sent yet goes out as an `AudioFrame` (only stretches that carry sound);
* where the future changed (a stop, a duck, a pause, a new reply) a `Cut` comes first:
  the page drops everything it holds from that session time on (at once, if it has
  played past it: a barge-in silences the page as soon as the decision is made), and
  the revised audio follows.

Nothing here decides anything: the output's own schedule is the single truth, and the
page is one more sink that follows it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from memory.media import SAMPLE_RATE
from venus.speech import OutputControl

__all__ = ["AudioFrame", "Cut", "PlayoutStream", "decode_mic", "encode_audio"]

_MIC_HEADER = 16
_SAME = 1e-5  # samples closer than this are the same audio


@dataclass(frozen=True)
class AudioFrame:
    """``audio`` (16 kHz float32) to be played from session time ``start``; ``now`` is
    the session time it was sent at (the page anchors its clock on it)."""

    start: float
    now: float
    audio: np.ndarray


@dataclass(frozen=True)
class Cut:
    """Drop everything held from session time ``at`` on (sent at session time ``now``)."""

    at: float
    now: float

    def message(self) -> dict:
        return {"op": "cut", "at": round(self.at, 4), "now": round(self.now, 4)}


class PlayoutStream:
    """Follows one output; `step` returns the messages that bring the sink up to date."""

    def __init__(self, output: OutputControl, *, lead_s: float = 0.4) -> None:
        self.output = output
        self.lead = round(lead_s * SAMPLE_RATE)
        self._at = 0  # sample where `_sent` begins
        self._sent = np.zeros(0, np.float32)  # what the sink holds over [_at, _at + len)
        self.frames = 0
        self.cuts = 0

    def step(self, now: float) -> list[AudioFrame | Cut]:
        start = round(self.output.horizon * SAMPLE_RATE)  # committed: never changes again
        end = max(round(now * SAMPLE_RATE), start) + self.lead
        ahead = self.output.preview(start / SAMPLE_RATE, end / SAMPLE_RATE)
        out: list[AudioFrame | Cut] = []
        sent_end = self._at + len(self._sent)
        overlap = min(sent_end, end) - start
        if overlap > 0:
            held = self._sent[start - self._at:start - self._at + overlap]
            changed = np.flatnonzero(np.abs(held - ahead[:overlap]) > _SAME)
            if len(changed):
                sent_end = start + int(changed[0])
                if np.any(held[changed[0]:] != 0):  # it held sound there: drop it
                    out.append(Cut(sent_end / SAMPLE_RATE, now))
                    self.cuts += 1
        new_from = max(sent_end, start)
        fresh = ahead[new_from - start:]
        sounding = np.flatnonzero(fresh)
        if len(sounding):
            a, b = int(sounding[0]), int(sounding[-1]) + 1
            out.append(AudioFrame((new_from + a) / SAMPLE_RATE, now, fresh[a:b].copy()))
            self.frames += 1
        self._at, self._sent = start, ahead
        return out


def encode_audio(frame: AudioFrame) -> bytes:
    """``b"A"`` and 7 bytes of padding, start and now (little-endian float64), then 16-bit
    PCM at 16 kHz (the header keeps the PCM aligned for the page's `Int16Array`)."""
    pcm = np.clip(frame.audio * 32767.0, -32768, 32767).astype("<i2")
    return b"A" + bytes(7) + struct.pack("<dd", frame.start, frame.now) + pcm.tobytes()


def decode_mic(data: bytes) -> tuple[int, float, np.ndarray]:
    """A microphone frame from the page: ``b"M"`` and 3 bytes of padding, the sample rate
    (uint32), the age of its last sample when sent (float64 seconds), then 16-bit PCM.
    Raises ValueError on anything else."""
    if len(data) < _MIC_HEADER or data[:1] != b"M":
        raise ValueError("not a microphone frame (expected b'M', 3 pad bytes, rate, age, PCM)")
    rate, age = struct.unpack_from("<Id", data, 4)
    body = data[_MIC_HEADER:]
    if len(body) % 2 or not 8000 <= rate <= 192000 or not 0.0 <= age < 10.0:
        raise ValueError(f"a malformed microphone frame (rate {rate}, age {age:.3f} s, "
                         f"{len(body)} bytes)")
    return rate, age, np.frombuffer(body, "<i2")
