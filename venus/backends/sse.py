"""Server-sent events as the WHATWG HTML standard defines them, and chat-completion deltas.

Above `base`; used by `openai_compat`. `sse_events` turns the lines of an event stream
into events by the standard's rules ("9.2.6 Interpreting an event stream"):

* a line starting with ``:`` is a comment (servers send keep-alives that way);
* ``field: value`` (one space after the colon is dropped, no colon means an empty value);
* every ``data`` line of one event is kept, and the lines are joined with ``\\n``;
* a blank line dispatches the event; an event with no ``data`` line is not dispatched;
* an event still open when the stream ends is discarded (it was never completed).

`chat_deltas` reads OpenAI chat-completion chunks from those events and says how the
stream ended, so the caller can tell a finished reply from a stream that died.
Measured against ``httpx-sse`` and the ``openai`` SDK (`venus bench server --clients`, in
docs/server.md): the same time within 2%, so no dependency for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["ChatStream", "SSEEvent", "StreamError", "chat_deltas", "sse_events"]


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event: its type (``message`` unless the stream named one) and data."""

    data: str
    event: str = "message"
    id: str | None = None


def sse_events(lines: Iterable[str]) -> Iterator[SSEEvent]:
    """Events from the stream's lines (line endings already removed, as httpx gives them)."""
    data: list[str] = []
    event, last_id = "", None
    for line in lines:
        if not line:
            if data:
                yield SSEEvent("\n".join(data), event or "message", last_id)
            data, event = [], ""
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")  # one space only
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = value
        # "retry" and unknown fields are ignored, as the standard says


class StreamError(Exception):
    """The stream carried an error instead of a completion (the server's words inside)."""


@dataclass
class ChatStream:
    """How a chat-completion stream went: set while `chat_deltas` is read."""

    done: bool = False  # the server sent ``[DONE]``
    chunks: int = 0  # completion chunks read
    content_chars: int = 0
    finish_reason: str | None = None


def chat_deltas(events: Iterable[SSEEvent], state: ChatStream) -> Iterator[str]:
    """Content deltas of chat-completion chunks, until ``[DONE]``.

    Raises `StreamError` for an ``error`` event or a chunk carrying ``error`` (vLLM and
    others report failures inside a 200 stream) and for data that is not a JSON object.
    """
    for ev in events:
        if ev.data.strip() == "[DONE]":
            state.done = True
            return
        try:
            payload = json.loads(ev.data)
        except ValueError as exc:
            raise StreamError(f"not JSON: {ev.data[:120]!r}") from exc
        if not isinstance(payload, dict):
            raise StreamError(f"not a completion chunk: {ev.data[:120]!r}")
        if ev.event == "error" or payload.get("error"):
            raise StreamError(_error_words(payload.get("error", payload)))
        state.chunks += 1
        for choice in payload.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            state.finish_reason = choice.get("finish_reason") or state.finish_reason
            delta = (choice.get("delta") or {}).get("content")
            if delta:
                state.content_chars += len(delta)
                yield delta


def _error_words(error: object) -> str:
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:300]
