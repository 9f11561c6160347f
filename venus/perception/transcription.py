"""Streaming transcription of user speech regions: partial words, then final words.

Above `speech`: the owner tells it when a region opens, grows and closes; it
re-transcribes the growing region at most once per call to `partial` (one per chunk)
and once more at the end for the final words. Any `memory.models.Transcriber` works;
the default is the embedded Whisper tiny.en.
"""

from __future__ import annotations

import logging

import numpy as np

from memory.models.base import Transcriber, Word

__all__ = ["RegionTranscriber"]

logger = logging.getLogger(__name__)

_MIN_ASR_S = 0.2  # shorter audio only makes Whisper hallucinate


class RegionTranscriber:
    """Words of one speech region at a time, with times in media seconds."""

    def __init__(self, transcriber: Transcriber | None = None) -> None:
        self._transcriber = transcriber
        self.partial_words: tuple[Word, ...] = ()

    @property
    def transcriber(self) -> Transcriber:
        if self._transcriber is None:
            from memory.models import WhisperTranscriber

            self._transcriber = WhisperTranscriber()
        return self._transcriber

    def reset(self) -> None:
        self.partial_words = ()

    def _words(self, audio: np.ndarray, start: float) -> tuple[Word, ...]:
        if len(audio) < _MIN_ASR_S * 16_000:
            return ()
        return self.transcriber.transcribe(audio, offset=start).words

    def partial(self, audio: np.ndarray, start: float) -> tuple[Word, ...]:
        """Words of the region so far (``audio`` starts at media time ``start``)."""
        self.partial_words = self._words(audio, start)
        return self.partial_words

    def final(self, audio: np.ndarray, start: float) -> tuple[Word, ...]:
        """Words of the whole, closed region; clears the partial state."""
        words = self._words(audio, start)
        self.partial_words = ()
        return words
