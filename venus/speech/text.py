"""`TimedTextOutput`: a `SpeechOutput` that "plays" text at a speaking rate in session time.

Behaviour layer of `venus.speech`, above `base`.

The default speech output of a session without audio (text demos, evaluation, tests): it
keeps a playout queue and decides from session times alone what has started, finished
or been cut, so playback acknowledgements are exact and deterministic.
"""

from __future__ import annotations

from collections import deque

from venus.speech.base import PlaybackReport, PlaybackStatus, Utterance

__all__ = ["TimedTextOutput"]


class TimedTextOutput:
    """Plays ``words_per_second`` words per second, one utterance after another."""

    def __init__(self, words_per_second: float = 2.5, min_seconds: float = 0.5) -> None:
        self.words_per_second = words_per_second
        self.min_seconds = min_seconds
        self._queue: deque[tuple[Utterance, float]] = deque()  # (utterance, queued at)
        self._current: Utterance | None = None
        self._started = 0.0
        self._idle_since = float("-inf")
        self._reports: list[PlaybackReport] = []

    @property
    def busy(self) -> bool:
        return self._current is not None or bool(self._queue)

    def duration(self, utterance: Utterance) -> float:
        return max(self.min_seconds, len(utterance.text.split()) / self.words_per_second)

    def queue(self, utterance: Utterance, now: float) -> None:
        self._advance(now)
        self._queue.append((utterance, now))
        self._advance(now)

    def poll(self, now: float) -> list[PlaybackReport]:
        self._advance(now)
        reports, self._reports = self._reports, []
        return reports

    def stop(self, now: float) -> list[PlaybackReport]:
        self._advance(now)
        if self._current is not None:
            heard = min(1.0, (now - self._started) / self.duration(self._current))
            self._emit(self._current, PlaybackStatus.STOPPED, now, heard)
            self._current, self._idle_since = None, now
        while self._queue:
            self._emit(self._queue.popleft()[0], PlaybackStatus.STOPPED, now, 0.0)
        reports, self._reports = self._reports, []
        return reports

    def _advance(self, now: float) -> None:
        """Play the queue forward to ``now``, noting each start and finish in order."""
        while True:
            if self._current is not None:
                end = self._started + self.duration(self._current)
                if end > now:
                    return
                self._emit(self._current, PlaybackStatus.FINISHED, end, 1.0)
                self._current, self._idle_since = None, end
            if not self._queue:
                return
            self._current, queued_at = self._queue.popleft()
            # Queued behind another utterance: starts when that one ended.
            self._started = max(self._idle_since, queued_at)
            self._emit(self._current, PlaybackStatus.STARTED, self._started, 0.0)

    def _emit(self, utterance: Utterance, status: PlaybackStatus, time: float,
              heard: float) -> None:
        self._reports.append(PlaybackReport(utterance.utterance_id, status, time, heard))
        self.played_hook(utterance, status, time, heard)

    def played_hook(self, utterance: Utterance, status: PlaybackStatus, time: float,
                    heard: float) -> None:
        """Called for each report; subclasses (the test fake) keep a history."""
