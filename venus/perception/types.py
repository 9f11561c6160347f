"""What live perception reports per chunk: small frozen dataclasses, no behaviour.

The bottom of `venus.perception` with `config`; `UserPerception` fills them and the
frontends read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memory.models.base import Word

__all__ = ["AddresseeCues", "PerceptionFrame", "Prosody", "SpeechBoundary"]


@dataclass(frozen=True)
class SpeechBoundary:
    """User speech started (``onset``) or ended (``offset``) at ``time`` (media seconds)."""

    kind: Literal["onset", "offset"]
    time: float


@dataclass(frozen=True)
class Prosody:
    """How the speech in this chunk sounded; None where the chunk held no speech.

    ``relative_db`` is ``rms_db`` minus the user's calibrated speech level (None before
    calibration); ``quieter`` is True when it is more than the margin below.
    """

    rms_db: float | None = None
    relative_db: float | None = None
    quieter: bool = False
    f0_hz: float | None = None
    words_per_s: float | None = None


@dataclass(frozen=True)
class AddresseeCues:
    """Who the current utterance seems to be for, from its words.

    ``other_name`` is a person addressed by name ("John, pass the salt"); ``request``
    is a second-person request, question or imperative; ``room``: what is asked is done
    with the hands, in the room ("can you close the window?": a request, never a question
    for the assistant); ``topic_similarity`` is the MiniLM cosine with the conversation
    context (None without context).
    """

    text: str = ""
    addressed_by_name: bool = False
    request: bool = False
    question: bool = False
    other_name: str | None = None
    backchannel: bool = False
    room: bool = False
    topic_similarity: float | None = None
    on_topic: bool | None = None

    @property
    def other_directed(self) -> bool:
        """Spoken to someone else: a person is named and the assistant is not."""
        return self.other_name is not None and not self.addressed_by_name


@dataclass(frozen=True)
class PerceptionFrame:
    """Everything perceived in one chunk ``[start, end)``.

    ``speaking`` is the state at the chunk's end. ``partial_words`` are the newest words of the
    region still open or still being transcribed (they may change next chunk); ``final_words`` are the words of
    regions whose transcription became visible in this chunk (they will not change;
    ASR runs in the background, so they arrive after the offset, see
    `PerceptionConfig.deterministic`). ``transcribing`` is True while a closed region's
    final words are still to come: the user's turn is not complete yet; ``turn_open``
    while the end-of-turn model judged the last offset unfinished and the user may go on
    (`PerceptionConfig.turn_wait_s`); ``turn_ends`` the offsets confirmed in this chunk
    that the end-of-turn model judged the end of a turn (none without a model). ``cues``
    describe the latest utterance (open or just ended). ``face_toward_camera`` is None
    without video.
    """

    chunk_index: int
    start: float
    end: float
    speech_probability: float
    speaking: bool
    boundaries: tuple[SpeechBoundary, ...] = ()
    partial_words: tuple[Word, ...] = ()
    final_words: tuple[Word, ...] = ()
    transcribing: bool = False
    turn_open: bool = False
    turn_ends: tuple[float, ...] = ()
    prosody: Prosody = Prosody()
    cues: AddresseeCues = AddresseeCues()
    faces: int | None = None
    face_toward_camera: bool | None = None

    @property
    def onsets(self) -> tuple[float, ...]:
        return tuple(b.time for b in self.boundaries if b.kind == "onset")

    @property
    def offsets(self) -> tuple[float, ...]:
        return tuple(b.time for b in self.boundaries if b.kind == "offset")

    @property
    def had_speech(self) -> bool:
        """The user spoke at some point in this chunk."""
        return self.speaking or bool(self.boundaries)

    @property
    def text(self) -> str:
        """Final words of this chunk, then the partial words of the open region."""
        return " ".join(w.text.strip() for w in self.final_words + self.partial_words).strip()
