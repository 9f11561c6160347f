"""`StandInChatServer`: a local OpenAI-compatible endpoint for trying the client offline.

Behaviour layer of `venus.notebook`. It speaks the chat-completions API (streamed and
not) on 127.0.0.1 in a thread and answers each request with ``reply(request)``: by
default ``<|speak|>`` plus a fixed sentence when the newest user message carries the
user's words, else ``<|listen|>``. It runs no model: it shows exactly what the
`OpenAICompatibleFrontend` sends each second (``requests``) and how replies are read.
Point the same frontend at vLLM, SGLang, the llama.cpp server or Ollama for a real model.

It also does what a real server cannot be made to do on demand, for tests and for
seeing the client's errors: `script` queues `Scripted` answers (HTTP 429/5xx with a
``Retry-After``, raw event streams: empty, cut short, an error event, multi-line
``data:`` fields, malformed chunks; a request held open), and ``text_only=True``
behaves like llama-cpp-python serving a text-only chat template: content given as a
list of parts fails (HTTP 500 when not streamed; a 200 stream that ends with nothing,
not even ``[DONE]``, when streamed, exactly as llama-cpp-python 0.3.36 does).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Scripted", "StandInChatServer", "default_reply", "sse_text"]

_TEMPLATE_ERROR = 'can only concatenate str (not "list") to str'


def _newest_user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def default_reply(request: dict[str, Any]) -> str:
    """``<|speak|>`` and a sentence when the user said something this second, else listen."""
    text = _newest_user_text(request)
    if "user:" not in text or "user: (silence)" in text or "your own voice is playing" in text:
        return "<|listen|>"
    return "<|speak|> I heard you; a real model would answer here."


def sse_text(content: str, *, piece: int = 8, done: bool = True, multiline: bool = False) -> str:
    """``content`` as the event stream of a chat completion, ``piece`` characters a chunk.

    ``multiline`` writes each chunk's JSON over several ``data:`` lines (valid SSE: the
    lines of one event are joined with newlines, and JSON allows them between tokens).
    """
    events = []
    for i in range(0, len(content), max(1, piece)):
        chunk = {"object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": {"content": content[i:i + piece]}}]}
        text = json.dumps(chunk, indent=1) if multiline else json.dumps(chunk)
        events.append("".join(f"data: {line}\n" for line in text.split("\n")) + "\n")
    return "".join(events) + ("data: [DONE]\n\n" if done else "")


@dataclass(frozen=True)
class Scripted:
    """One scripted answer, used for the next request instead of the normal reply.

    ``content``: reply with this text (streamed or not, as asked); ``status`` + ``body``:
    answer with that status and raw body (an error, or garbage); ``headers``: extra
    response headers (``(("Retry-After", "0.2"),)``); ``events``: for a streamed request,
    write this raw event-stream text and close (nothing added, not even ``[DONE]``);
    ``stall``: hold the request open, sending nothing (after ``events`` if given), until
    the server closes.
    """

    content: str | None = None
    status: int = 200
    body: str | None = None
    headers: Sequence[tuple[str, str]] = ()
    events: str | None = None
    stall: bool = False


class StandInChatServer:
    """``with StandInChatServer() as server: ... server.base_url ...``, or `start` and
    `close` (see the module docstring). ``port`` 0 picks a free one; pass a closed
    server's ``port`` to bring "the same server" back."""

    def __init__(self, reply: Callable[[dict[str, Any]], str] = default_reply,
                 model: str = "stand-in", *, text_only: bool = False, port: int = 0) -> None:
        self.reply, self.model, self.text_only = reply, model, text_only
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._script: list[Scripted] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True, name="standin-chat-server")

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *answers: Scripted | str) -> StandInChatServer:
        """Queue answers for the next requests (a string is ``Scripted(content=...)``)."""
        with self._lock:
            self._script += [Scripted(content=a) if isinstance(a, str) else a for a in answers]
        return self

    def messages_text(self, index: int = -1) -> list[str]:
        """Request ``index`` as readable lines ``role: text``, each image as ``[image]``
        and each audio part as ``[audio]`` (what the model was shown that second)."""
        lines = []
        for message in self.requests[index].get("messages", []):
            content = message.get("content")
            if not isinstance(content, str):
                content = " ".join(p.get("text", "") if p.get("type") == "text" else
                                   f"[{p.get('type', 'part').replace('_url', '').replace('input_', '')}]"
                                   for p in content or [])
            lines.append(f"{message.get('role')}: {content}")
        return lines

    def start(self):
        """Start serving in a background thread; returns the server (see `close`)."""
        self._thread.start()
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and release held requests; the port is free again afterwards."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict[str, Any]) -> Scripted:
        with self._lock:
            self.requests.append(body)
            if self._script:
                return self._script.pop(0)
        if self.text_only and any(isinstance(m.get("content"), list)
                                  for m in body.get("messages", [])):
            return (Scripted(events="") if body.get("stream") else Scripted(
                status=500, body=json.dumps({"error": {"message": _TEMPLATE_ERROR}})))
        return Scripted(content=self.reply(body))

    def _handler(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.0: one request per connection, so a closed server is really gone
            # (no kept-alive connection keeps answering).
            def log_message(self, *args) -> None:  # keep the notebook quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if not self.path.endswith("/chat/completions"):
                    missing = {"error": {"message": f"no route {self.path}"}}
                    return self._send(404, json.dumps(missing))
                owner.headers.append(dict(self.headers))
                answer = owner._next(body)
                try:
                    self._answer(answer, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading early, as it may

            def _answer(self, answer: Scripted, body: dict[str, Any]) -> None:
                if answer.body is not None or answer.status != 200:
                    return self._send(answer.status, answer.body or "{}", answer.headers)
                if answer.stall and answer.events is None:
                    owner._closed.wait()  # not even the headers
                    return None
                if answer.events is not None:
                    self._begin_stream(answer.headers)
                    self.wfile.write(answer.events.encode())
                    self.wfile.flush()
                    if answer.stall:
                        owner._closed.wait()
                    return None
                content = answer.content or ""
                if body.get("stream"):
                    self._begin_stream(answer.headers)
                    self.wfile.write(sse_text(content).encode())
                    return None
                return self._send(200, json.dumps({
                    "id": "standin", "object": "chat.completion", "model": owner.model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}]}),
                    answer.headers)

            def _send(self, status: int, text: str, headers=()) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _begin_stream(self, headers=()) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(b": keep-alive\n\n")

        return Handler
