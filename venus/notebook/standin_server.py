"""`StandInChatServer`: a local OpenAI-compatible endpoint for trying the client offline.

Behaviour layer of `venus.notebook`. It speaks the chat-completions API (streamed and
not) on 127.0.0.1 in a thread and answers each request with ``reply(request)``: by
default ``<|speak|>`` plus a fixed sentence when the newest user message carries the
user's words, else ``<|listen|>``. It runs no model: it shows exactly what the
`OpenAICompatibleFrontend` sends each second (``requests``) and how replies are read.
Point the same frontend at vLLM, SGLang, the llama.cpp server or Ollama for a real model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["StandInChatServer", "default_reply"]


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


class StandInChatServer:
    """``with StandInChatServer() as server: ... server.base_url ...``, or `start` and
    `close` (see the module docstring)."""

    def __init__(self, reply: Callable[[dict[str, Any]], str] = default_reply,
                 model: str = "stand-in") -> None:
        self.reply, self.model = reply, model
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="standin-chat-server")

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

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
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep the notebook quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                owner.requests.append(body)
                content = owner.reply(body)
                if body.get("stream"):
                    return self._stream(content)
                self._send(200, {"id": "standin", "object": "chat.completion",
                                 "model": owner.model, "choices": [{
                                     "index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}]})

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, content: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for i in range(0, len(content), 8):
                        chunk = {"object": "chat.completion.chunk", "choices": [
                            {"index": 0, "delta": {"content": content[i:i + 8]}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading early, as it may

        return Handler
