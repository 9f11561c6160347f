"""`TypedTurns`: typed messages and panel buttons enter the one-second schedule as a Frontend.

The app's conversation handler. It wraps any `venus.Frontend` (the embedded policy, a
transformers model, an OpenAI-compatible server, or a `venus.testing.FakeFrontend`) and is
itself a `Frontend`, so the session loop stays the only writer of the timeline and the only
caller of the harness: the browser threads merely queue text and decisions here, and the
next chunk boundary turns them into a `Decision`.

A typed message is a finished user turn. While the assistant is speaking it is an
interruption: the floor is yielded (the session stops and flushes the output) and the new
message is answered instead, so the reply changes course. Its intent comes from
`venus.frontend.intents.detect_intent`, the rules the embedded frontend uses for speech:
summaries, quizzes, whole-video searches and timers are delegated to the harness with a
short acknowledgement; anything else is answered at once by ``answer(text, at)``.

Video time: in file mode the conversation runs after (or while) the video is watched, so
its clock is not the video's. ``media_end()`` says how much of the video exists (None:
session time is video time, as with the camera); every summary or quiz range, typed or
spoken, is clamped to it, so "summarize the lecture so far" covers 0:00-3:32 of a 3:32
video however long the conversation has run.
"""

from __future__ import annotations

import dataclasses
import queue
from collections.abc import Callable

from venus.events import (
    ControlToken,
    FloorAction,
    OverlapClassified,
    OverlapKind,
    UserWordsTranscribed,
)
from venus.frontend import Decision, DelegationRequest, DuplexFrame, Frontend, SessionView
from venus.frontend.intents import detect_intent

__all__ = ["Answerer", "TypedTurns"]

Answerer = Callable[[str, float], str]
"""``answer(question, at)`` -> the reply to speak (the app also keeps its citations)."""

MediaEnd = Callable[[], "float | None"]
"""``media_end()`` -> the end of the video watched so far, or None when session time is
video time."""

_STOPPING = (FloorAction.YIELD_FLOOR, FloorAction.STOP_OUTPUT, FloorAction.REVISE_RESPONSE)
_RANGED = ("summarize_range", "make_quiz")


class TypedTurns:
    """A `Frontend` that adds typed turns and UI decisions to an inner frontend's own."""

    def __init__(self, inner: Frontend, answer: Answerer,
                 media_end: MediaEnd | None = None) -> None:
        self.inner = inner
        self.answer = answer
        self.media_end = media_end or (lambda: None)
        self.name = f"{getattr(inner, 'name', 'frontend')}+typed"
        self.hop_s = getattr(inner, "hop_s", None)  # the inner frontend's cadence
        self._texts: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._requests: queue.SimpleQueue[DelegationRequest] = queue.SimpleQueue()

    # -- called from browser threads -------------------------------------------------
    def say(self, text: str) -> None:
        """Queue a typed user turn for the next chunk boundary."""
        if text.strip():
            self._texts.put(text.strip())

    def request(self, request: DelegationRequest) -> None:
        """Queue a decision about a work item (cancel, retry) for the next boundary."""
        self._requests.put(request)

    # -- called by the session loop ----------------------------------------------------
    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        self.inner.close()

    def decide(self, frame: DuplexFrame, view: SessionView) -> Decision:
        decision = self.inner.decide(frame, view)
        end = self.media_end()
        if end is not None and any(d.capability in _RANGED for d in decision.delegations):
            decision = dataclasses.replace(decision, delegations=tuple(
                _in_video(d, end) for d in decision.delegations))
        text, requests = _first(self._texts), _drain(self._requests)
        if text is None and not requests:
            return decision
        perceived = list(decision.perceived)
        delegations = list(decision.delegations) + requests
        floor, speech = decision.floor, decision.speech
        if text is not None:  # one turn per second; a second message waits a chunk
            perceived.append(UserWordsTranscribed(text, frame.start, frame.end))
            if view.speaking or speech:
                # Typing while the assistant talks is a real interruption: stop, then answer.
                perceived.append(OverlapClassified(OverlapKind.INTERRUPTION, text))
                floor = FloorAction.YIELD_FLOOR
            speech, new = self._reply(text, view)
            delegations += new
        token = ControlToken.SPEAK if speech else (
            ControlToken.TURN_EOS if floor in _STOPPING else decision.token)
        return Decision(token, speech, floor, tuple(delegations), tuple(perceived))

    def _reply(self, text: str, view: SessionView) -> tuple[str | None, list[DelegationRequest]]:
        end = self.media_end()
        now = view.time if end is None else min(view.time, end)
        intent = detect_intent(text, now)
        if intent.kind == "delegate":
            request = DelegationRequest.new(intent.capability, intent.arguments)
            return intent.ack, [request if end is None else _in_video(request, end)]
        if intent.kind == "cancel":
            if not view.work:
                return "There is nothing running to cancel.", []
            newest = max(view.work, key=lambda w: w.requested_at)
            return intent.ack, [DelegationRequest.cancel(newest.item_id)]
        # A typed message is always addressed to the assistant: answer statements too.
        return self.answer(text, view.time), []


def _in_video(request: DelegationRequest, end: float) -> DelegationRequest:
    """A summary or quiz range clamped to the video watched (``end`` seconds)."""
    if request.capability not in _RANGED:
        return request
    args = dict(request.arguments)
    hi = end if args.get("end") is None else min(float(args["end"]), end)
    args["end"] = hi
    if args.get("start") is not None:
        args["start"] = max(0.0, min(float(args["start"]), hi))
    return dataclasses.replace(request, arguments=args)


def _first(q: queue.SimpleQueue) -> str | None:
    try:
        return q.get_nowait()
    except queue.Empty:
        return None


def _drain(q: queue.SimpleQueue) -> list:
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out
