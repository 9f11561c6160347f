"""`ModelFrontend`: the `Frontend` Protocol on top of any `venus.backends.ModelBackend`.

Above `venus.frontend.base`, `venus.perception` and `venus.backends`. Policy only: the
runtime's duplex I/O removes the assistant's echo, perceives the user (speech boundaries
and words) and runs the overlap gate, as for every frontend. Per chunk this frontend
hands the model one second (frames, the words new in that second, whether the assistant
is speaking, notes about background results) and maps the model's control token onto a
`Decision`:

* ``<|speak|>``: queue the reply text; while already speaking, continue speaking;
* ``<|listen|>``: stay silent; while speaking *and* the user spoke in this chunk, the
  model chose to stop for them: yield the floor (the session stops queued output);
* ``<|turn_eos|>``: the turn is over: await input.

A backend failure (server down, timeout, bad reply) is the model's problem, not a bug:
the decision is ``<|listen|>``, the error is recorded on the timeline once per outage and
after a few failed chunks in a row the assistant says so once (`BackendFailures`).
Model frontends do not delegate: background work is the embedded frontend's job.
"""

from __future__ import annotations

import logging

from memory.media import VideoChunk
from venus.backends.base import BackendDecision, BackendError, ChunkInput, ModelBackend
from venus.errors import ConfigError
from venus.events import (
    ControlToken,
    Event,
    FloorAction,
    SpeechDetected,
    UserWordsTranscribed,
)
from venus.frontend.base import Decision, DuplexFrame, SessionView
from venus.frontend.failures import BackendFailures
from venus.perception import PerceptionFrame

__all__ = ["ModelFrontend"]

logger = logging.getLogger(__name__)


class ModelFrontend:
    """A `Frontend` whose control decisions come from a model backend.

    ``max_frames`` frames of each chunk (the latest) go to the model. The session's
    duplex I/O must perceive the user (`venus.assistant` builds it so).
    """

    name = "model"

    def __init__(self, backend: ModelBackend, *, max_frames: int = 1, name: str | None = None,
                 say_after: int = 3) -> None:
        self.backend = backend
        self.max_frames = max_frames
        if name:
            self.name = name
        self._given = 0  # words of the open region already given to the model
        self._previous: list[str] = []  # the previous partial transcript
        self._seen_offers: set[str] = set()
        self.failures = BackendFailures(self.name, say_after=say_after)
        self.decisions: list[BackendDecision] = []  # every backend decision, for inspection

    def reset(self) -> None:
        self.backend.reset()
        self._given, self._previous, self._seen_offers = 0, [], set()
        self.failures.reset()

    def close(self) -> None:
        """Release the backend (a connection, a loaded model)."""
        self.backend.close()

    def decide(self, duplex: DuplexFrame, view: SessionView) -> Decision:
        frame = duplex.perception
        if frame is None:
            raise ConfigError(f"{type(self).__name__} needs live perception of the user: build "
                              f"the session with venus.assistant(frontend=...), or give Session "
                              f"a DuplexIO(output, perception=UserPerception())")
        chunk: VideoChunk = duplex.chunk
        words = self._new_words(frame)
        images = tuple(f.image for f in chunk.frames[-self.max_frames:]) if self.max_frames else ()
        item = ChunkInput(chunk.start, chunk.end, images, words, view.speaking, self._notes(view),
                          audio=chunk.audio if chunk.has_audio else None,
                          user_speaking=frame.speaking)
        perceived = _perceived(frame)
        try:
            decided = self.backend.decide(item)
        except BackendError as exc:
            recorded, notice = self.failures.failed(exc)
            return Decision(ControlToken.SPEAK if notice else ControlToken.LISTEN, speech=notice,
                            perceived=perceived + recorded)
        self.failures.succeeded()
        self.decisions.append(decided)
        return Decision(decided.token, speech=decided.text or None,
                        floor=_floor(decided.token, view.speaking, frame.had_speech),
                        perceived=perceived)

    def _new_words(self, frame: PerceptionFrame) -> str:
        """Words to give the model this second, each once.

        Partial transcripts are revised as the region grows, so a partial word is given
        only once two successive partials agree on it (local agreement); when the region
        closes, the final words past those already given follow.
        """
        out: list[str] = []
        if frame.final_words:
            out += [w.text for w in frame.final_words][self._given:]
            self._given, self._previous = 0, []
        current = [w.text for w in frame.partial_words]
        agreed = 0
        for a, b in zip(self._previous, current):
            if _norm(a) != _norm(b):
                break
            agreed += 1
        if agreed > self._given:
            out += current[self._given:agreed]
            self._given = agreed
        self._previous = current
        return " ".join(out)

    def _notes(self, view: SessionView) -> tuple[str, ...]:
        notes = []
        for offer in (*view.results, *view.context):
            if offer.item_id not in self._seen_offers:
                self._seen_offers.add(offer.item_id)
                notes.append(f"background result ({offer.capability}): {offer.speech}")
        return tuple(notes)


def _floor(token: ControlToken, speaking: bool, user_spoke: bool) -> FloorAction | None:
    if token is ControlToken.SPEAK:
        return FloorAction.CONTINUE_SPEAKING if speaking else None
    if token is ControlToken.TURN_EOS:
        return FloorAction.AWAIT_INPUT
    return FloorAction.YIELD_FLOOR if speaking and user_spoke else None


def _norm(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum())


def _perceived(frame: PerceptionFrame) -> tuple[Event, ...]:
    events: list[Event] = []
    if frame.had_speech:
        start = frame.onsets[0] if frame.onsets else frame.start
        end = frame.offsets[-1] if frame.offsets and not frame.speaking else frame.end
        events.append(SpeechDetected(start, end))
    if frame.final_words:
        words = frame.final_words
        events.append(UserWordsTranscribed(" ".join(w.text for w in words), words[0].start,
                                           words[-1].end))
    return tuple(events)
