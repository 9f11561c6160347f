"""A client for any OpenAI-compatible chat-completions server, as a `ModelBackend`.

Above `base`, `prompt` and `images`. This is how the real large models run: vLLM,
SGLang, the llama.cpp server or Ollama serve them on another machine and this client
sends one user message per second (base64 JPEG ``image_url`` parts for the frames, the
words of the second as text) after the control-token protocol in the system prompt
(see `venus.backends.prompt`). Replies are read streamed (server-sent events; the
stream is closed as soon as a ``<|listen|>`` or ``<|turn_eos|>`` is read) or whole.

httpx exceptions are translated where they enter: a refused connection, a timeout or
an HTTP error each become one `BackendError` sentence naming the URL and the fix.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from venus.backends.base import BackendDecision, BackendError, ChunkInput
from venus.backends.images import jpeg_data_url, wav_base64
from venus.backends.prompt import (
    assistant_message_text,
    chunk_message_text,
    parse_control,
    system_prompt,
)
from venus.events import ControlToken

__all__ = ["OpenAICompatibleBackend", "OpenAICompatibleConfig"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OpenAICompatibleConfig:
    """Where the server is and how to talk to it.

    ``base_url`` ends in ``/v1`` (vLLM/SGLang ``http://host:8000/v1``, llama.cpp
    ``http://host:8080/v1``, Ollama ``http://host:11434/v1``); ``model`` is the served
    model name. ``history_chunks`` seconds of past messages are resent each second, but
    frames only for the last ``image_chunks`` of them (images dominate the prompt). The
    system prompt and the older, text-only seconds repeat unchanged from one request to
    the next, so the servers' prefix caching (on by default in vLLM and SGLang) reuses
    them; for the same reason a full history drops its oldest half at once rather than
    one second per request (which would change the prefix every time).
    ``extra_body`` is merged into every request (for example
    ``{"skip_special_tokens": False}`` so vLLM keeps the control tokens in its output).
    ``send_audio`` adds the newest second's audio as an ``input_audio`` part (base64
    WAV), for servers of models that hear (vLLM serving Qwen2.5-Omni, for example).
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "default"
    api_key: str | None = None
    stream: bool = True
    timeout_s: float = 10.0
    connect_timeout_s: float = 3.0
    max_tokens: int = 40
    temperature: float = 0.0
    max_image_side: int = 448
    jpeg_quality: int = 80
    history_chunks: int = 30
    image_chunks: int = 1
    assistant_name: str = "Venus"
    system_extra: str = ""
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    send_audio: bool = False

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass(frozen=True)
class _Turn:
    """One past second: the user message's text and frames, and what the assistant said."""

    text: str
    images: tuple[str, ...]  # data URLs, encoded once
    reply: str = ""
    audio: str | None = None  # base64 WAV; only the newest second's is ever sent


class OpenAICompatibleBackend:
    """Control decisions from a chat-completions server, one request per second.

    Pass ``client`` (an ``httpx.Client``) to share connections or set proxies; the
    default client is closed by `close` (or by using the backend as a context manager).
    """

    def __init__(self, config: OpenAICompatibleConfig | None = None, *, client=None) -> None:
        import httpx

        self.config = config or OpenAICompatibleConfig()
        c = self.config
        headers = {"Authorization": f"Bearer {c.api_key}"} if c.api_key else {}
        self._own_client = client is None
        self._client = client or httpx.Client(
            timeout=httpx.Timeout(c.timeout_s, connect=c.connect_timeout_s), headers=headers)
        self._turns: list[_Turn] = []

    def reset(self) -> None:
        self._turns.clear()

    def close(self) -> None:
        if self._own_client:
            self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one second ------------------------------------------------------------------
    def decide(self, chunk: ChunkInput) -> BackendDecision:
        c = self.config
        images = tuple(jpeg_data_url(im, c.max_image_side, c.jpeg_quality) for im in chunk.images)
        audio = (wav_base64(chunk.audio) if c.send_audio and chunk.audio is not None
                 and len(chunk.audio) else None)
        turn = _Turn(chunk_message_text(chunk), images, audio=audio)
        began = time.perf_counter()
        body = self.request_body(turn)
        reply = self._stream(body) if c.stream else self._complete(body)
        token, text = parse_control(reply)
        if token is None:
            logger.debug("reply without a control token: %r", reply[:80])
            token = ControlToken.SPEAK if text else ControlToken.LISTEN
        if token is not ControlToken.SPEAK:
            text = ""
        if len(self._turns) >= max(1, self.config.history_chunks):
            del self._turns[:max(1, len(self._turns) // 2)]
        self._turns.append(_Turn(turn.text, turn.images, assistant_message_text(token, text)))
        return BackendDecision(token, text, latency_s=time.perf_counter() - began)

    def messages(self, turn: _Turn) -> list[dict[str, Any]]:
        """System prompt, the kept history (frames only for the newest) and ``turn``."""
        c = self.config
        turns = [*self._turns, turn]
        with_images = set(range(len(turns) - max(0, c.image_chunks), len(turns)))
        out: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(c.assistant_name, c.system_extra)}]
        for i, t in enumerate(turns):
            parts: list[dict[str, Any]] = [
                {"type": "image_url", "image_url": {"url": url}}
                for url in (t.images if i in with_images else ())]
            if t.audio is not None and i == len(turns) - 1:
                parts.append({"type": "input_audio",
                              "input_audio": {"data": t.audio, "format": "wav"}})
            parts.append({"type": "text", "text": t.text})
            out.append({"role": "user", "content": parts})
            if t.reply:
                out.append({"role": "assistant", "content": t.reply})
        return out

    def request_body(self, turn: _Turn) -> dict[str, Any]:
        c = self.config
        return {"model": c.model, "messages": self.messages(turn), "max_tokens": c.max_tokens,
                "temperature": c.temperature, "stream": c.stream, **dict(c.extra_body)}

    # -- HTTP ------------------------------------------------------------------------
    def _complete(self, body: dict[str, Any]) -> str:
        with self._errors():
            response = self._client.post(self.config.url, json=body)
            self._check(response)
            try:
                return response.json()["choices"][0]["message"].get("content") or ""
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                raise self._malformed(response.text) from exc

    def _stream(self, body: dict[str, Any]) -> str:
        reply = ""
        with self._errors(), self._client.stream("POST", self.config.url, json=body) as response:
            if response.status_code >= 400:
                response.read()
            self._check(response)
            for delta in _sse_deltas(response.iter_lines(), self._malformed):
                reply += delta
                token, _ = parse_control(reply)
                if token in (ControlToken.LISTEN, ControlToken.TURN_EOS):
                    break  # nothing more to read: closing the stream stops the generation
        return reply

    @contextmanager
    def _errors(self) -> Iterator[None]:
        import httpx

        url = self.config.url
        try:
            yield
        except httpx.ConnectError as exc:
            raise BackendError(
                f"cannot connect to the model server at {url}: start the server (vLLM, SGLang, "
                f"llama.cpp server, Ollama) or pass the right base_url") from exc
        except httpx.TimeoutException as exc:
            raise BackendError(
                f"the model server at {url} did not answer within {self.config.timeout_s:g} s; "
                f"raise timeout_s or serve a smaller model") from exc
        except httpx.HTTPError as exc:
            raise BackendError(f"the request to the model server at {url} failed: {exc}") from exc

    def _check(self, response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = _error_detail(response)
        url, model = self.config.url, self.config.model
        hint = {401: "pass the right api_key", 403: "pass an api_key allowed to use this model",
                404: f"check that base_url ends in /v1 and that the server serves model {model!r}",
                413: "send fewer or smaller frames (image_chunks, max_image_side)",
                429: "the server is overloaded; slow down or add capacity"}.get(
            status, "check the server's log" if status >= 500 else "check the request options")
        raise BackendError(f"the model server at {url} answered HTTP {status}"
                           f"{f' ({detail})' if detail else ''}: {hint}")

    def _malformed(self, text: str) -> BackendError:
        return BackendError(
            f"the server at {self.config.url} did not send a chat completion "
            f"({text[:120]!r}); check that it is an OpenAI-compatible endpoint")


def _error_detail(response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if isinstance(payload, dict):
        err = payload.get("error", payload.get("detail", payload))
        if isinstance(err, dict):
            err = err.get("message", err)
        return str(err)[:200]
    return str(payload)[:200]


def _sse_deltas(lines, malformed) -> Iterator[str]:
    """Content deltas from server-sent chat-completion chunks, until ``[DONE]``."""
    for line in lines:
        if not line.startswith("data:"):
            continue  # comments, event names, keep-alives
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            payload = json.loads(data)
            choices = payload.get("choices") or []
        except (ValueError, AttributeError) as exc:
            raise malformed(data) from exc
        if payload.get("error"):  # vLLM and others report failures inside the stream
            raise malformed(f"error: {payload['error']}")
        for choice in choices:
            delta = (choice.get("delta") or {}).get("content")
            if delta:
                yield delta
