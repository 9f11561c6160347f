"""A client for any OpenAI-compatible chat-completions server, as a `ModelBackend`.

Above `base`, `prompt`, `sse` and `images`. This is how the real large models run: vLLM,
SGLang, the llama.cpp server or Ollama serve them on another machine and this client
sends one user message per second after the control-token protocol in the system prompt
(see `venus.backends.prompt`). Replies are read streamed (server-sent events; the stream
is closed as soon as a ``<|listen|>`` or ``<|turn_eos|>`` is read) or whole.

What is sent is shaped for the server: a message with only text has plain string
``content`` (text-only chat templates, such as llama.cpp's Jinja ones, cannot join a list
of parts); content parts are sent only for frames (``supports_images``) and audio
(``supports_audio``), and a server that rejects them gets an error naming the setting.

Nothing fails silently. httpx exceptions are translated where they enter, and a 200
stream that ends without ``[DONE]`` and without content (a server that failed inside its
generator) or that carries an error event is a `BackendOutputError` with the server's
words. HTTP 429 and 5xx are retried with exponential backoff and jitter (and the
server's ``Retry-After``) while the chunk budget lasts; a refused connection is not
retried (a dead server would eat every chunk's budget).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from venus.backends.base import BackendDecision, BackendError, ChunkInput
from venus.backends.images import jpeg_data_url, wav_base64
from venus.backends.prompt import (
    assistant_message_text,
    chunk_message_text,
    parse_control,
    system_prompt,
)
from venus.backends.sse import ChatStream, StreamError, chat_deltas, sse_events
from venus.clock import perf_seconds
from venus.errors import BackendOutputError, BackendTimeout, BackendUnavailable
from venus.events import ControlToken

__all__ = ["WORDS_PROMPT", "OpenAICompatibleBackend", "OpenAICompatibleConfig", "ReplyTrace"]

logger = logging.getLogger(__name__)

_RETRYABLE = frozenset({429, 500, 502, 503, 504})

WORDS_PROMPT = ("You are {name}, a voice assistant. Answer the user in one or two short, "
                "plain sentences.")
"""The system prompt of a words request (``<|speak|>`` came without words)."""


@dataclass(frozen=True)
class OpenAICompatibleConfig:
    """Where the server is, what it accepts and how to talk to it.

    ``base_url`` ends in ``/v1`` (vLLM/SGLang ``http://host:8000/v1``, llama.cpp
    ``http://host:8080/v1``, Ollama ``http://host:11434/v1``); ``model`` is the served
    model name. ``history_chunks`` seconds of past messages are resent each second, but
    frames only for the last ``image_chunks`` of them (images dominate the prompt). The
    system prompt and the older, text-only seconds repeat unchanged from one request to
    the next, so the servers' prefix caching (on by default in vLLM, SGLang and llama.cpp)
    reuses them; for the same reason a full history drops its oldest half at once rather
    than one second per request (which would change the prefix every time).

    What the server's model takes: ``supports_images`` (frames as ``image_url`` parts;
    set False for a text-only model) and ``supports_audio`` (the newest second's audio as
    an ``input_audio`` part, base64 WAV, for models that hear, e.g. vLLM serving
    Qwen2.5-Omni). ``extra_body`` is merged into every request (for example
    ``{"skip_special_tokens": False}`` so vLLM keeps the control tokens in its output).

    ``ask_for_words``: when the model answers ``<|speak|>`` with no words at the end of
    the user's turn, one more request (`OpenAICompatibleBackend.words_body`, a plain chat
    without the protocol) asks what to say.

    Retries: HTTP 429 and 5xx are retried after ``backoff_s`` x 2^attempt (x a random
    factor in [0.5, 1.5), or the server's ``Retry-After``) for as long as the wait ends
    within ``chunk_budget_s`` of the second's first request (one chunk: 1 s).
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
    supports_images: bool = True
    supports_audio: bool = False
    chunk_budget_s: float = 1.0
    ask_for_words: bool = True
    backoff_s: float = 0.05
    assistant_name: str = "Venus"
    system_extra: str = ""
    extra_body: Mapping[str, Any] = field(default_factory=dict)

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


@dataclass(frozen=True)
class ReplyTrace:
    """How the last decision was reached, for inspection and `venus bench server`.

    ``raw``: the protocol reply as the server sent it; ``words_raw``: the words
    request's reply (None when none was made); ``attempts``: requests made for the
    protocol reply (1 = no retry); ``rule``: which rule decided (``token``, ``no-token
    speak`` / ``no-token listen`` (the fallback), ``repeat dropped``, ``asked for words``).
    """

    raw: str = ""
    words_raw: str | None = None
    attempts: int = 0
    rule: str = ""


class _Retry(Exception):
    """A retryable answer (429/5xx): the error to raise if no retry fits, and the wait
    the server asked for."""

    def __init__(self, error: BackendError, after_s: float | None) -> None:
        super().__init__(str(error))
        self.error, self.after_s = error, after_s


class OpenAICompatibleBackend:
    """Control decisions from a chat-completions server, one request per second.

    Pass ``client`` (an ``httpx.Client``) to share connections or set proxies; the
    default client is closed by `close` (or by using the backend as a context manager).
    ``now`` and ``wait`` are the stopwatch and the pause of the retry backoff (a real
    server is overloaded in real time, so the default is the wall clock even in a
    simulated session); tests pass a fake pair. ``rng`` draws the jitter.
    """

    def __init__(self, config: OpenAICompatibleConfig | None = None, *, client=None,
                 now: Callable[[], float] = perf_seconds,
                 wait: Callable[[float], Any] | None = None,
                 rng: random.Random | None = None) -> None:
        import httpx

        self.config = config or OpenAICompatibleConfig()
        c = self.config
        headers = {"Authorization": f"Bearer {c.api_key}"} if c.api_key else {}
        self._own_client = client is None
        self._client = client or httpx.Client(
            timeout=httpx.Timeout(c.timeout_s, connect=c.connect_timeout_s), headers=headers)
        self._now, self._wait = now, wait or threading.Event().wait
        self._rng = rng or random.Random(0)
        self._turns: list[_Turn] = []
        self._asked: list[str] = []  # the user's words since the assistant last spoke
        self._exchanges: list[tuple[str, str]] = []  # (asked, answered), for words requests
        self.last = ReplyTrace()  # how the last decision was reached
        self._attempts = 0

    def reset(self) -> None:
        self._turns.clear()
        self._asked.clear()
        self._exchanges.clear()

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
        images = (tuple(jpeg_data_url(im, c.max_image_side, c.jpeg_quality) for im in chunk.images)
                  if c.supports_images and c.image_chunks > 0 else ())
        audio = (wav_base64(chunk.audio) if c.supports_audio and chunk.audio is not None
                 and len(chunk.audio) else None)
        turn = _Turn(chunk_message_text(chunk), images, audio=audio)
        began = self._now()
        reply = self._request(self.request_body(turn), began)
        self.last = ReplyTrace(reply, attempts=self._attempts)
        if chunk.words.strip():
            self._asked.append(" ".join(chunk.words.split()))
        token, text = self._decide(reply, chunk, began)
        if len(self._turns) >= max(1, c.history_chunks):
            del self._turns[:max(1, len(self._turns) // 2)]
        self._turns.append(_Turn(turn.text, turn.images, assistant_message_text(token, text)))
        return BackendDecision(token, text, latency_s=self._now() - began)

    def _decide(self, reply: str, chunk: ChunkInput, began: float) -> tuple[ControlToken, str]:
        """The token and words, by the rules of `venus.backends.prompt` plus three of the
        backend's own, which need the conversation. The user's turn has ended when words
        were heard since the assistant last spoke and neither the user nor the assistant
        is speaking; words the model talked on over (``<|speak|>`` while the assistant
        speaks) are no turn to answer. No token at all speaks only when the turn ended and
        the reply has words; words the assistant said in one of its last replies are not
        spoken again (small models copy their last reply every second); ``<|speak|>``
        without (new) words at the end of the turn gets its words from a plain request
        (`words_body`) when ``ask_for_words`` is on (small models emit the token and stop).
        """
        token, text = parse_control(reply)
        turn_ended = bool(self._asked) and not chunk.user_speaking and not chunk.assistant_speaking
        rule = "token"
        if token is None:
            logger.debug("reply without a control token (turn ended: %s): %r", turn_ended,
                         reply[:80])
            token = ControlToken.SPEAK if text and turn_ended else ControlToken.LISTEN
            rule = f"no-token {token.name.lower()}"
        if token is not ControlToken.SPEAK:
            self.last = replace(self.last, rule=rule)
            return token, ""
        if chunk.assistant_speaking:  # it talks on over what it heard: not a turn to answer
            self._asked.clear()
        if text and any(_repeats(text, said) for _, said in self._exchanges):
            logger.debug("the model repeats itself; not spoken again: %r", text)
            text, rule = "", "repeat dropped"
        if not text and turn_ended and self.config.ask_for_words:
            words_raw = self._request(self.words_body(), began)
            text = _whole_sentences(parse_control(words_raw)[1])
            self.last = replace(self.last, words_raw=words_raw)
            rule = "asked for words"
        self.last = replace(self.last, rule=rule)
        if text:
            self._exchanges = [*self._exchanges[-2:], (" ".join(self._asked), text)]
            self._asked.clear()
        return token, text

    def words_body(self) -> dict[str, Any]:
        """A plain chat request for what to say to the user's turn (no protocol): the
        last exchanges and the words asked since the assistant last spoke."""
        c = self.config
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": WORDS_PROMPT.format(name=c.assistant_name)}]
        for asked, answered in self._exchanges:
            if asked:
                messages += [{"role": "user", "content": asked},
                             {"role": "assistant", "content": answered}]
        messages.append({"role": "user", "content": " ".join(self._asked)})
        return {"model": c.model, "messages": messages, "max_tokens": c.max_tokens,
                "temperature": c.temperature, "stream": c.stream, **dict(c.extra_body)}

    def messages(self, turn: _Turn) -> list[dict[str, Any]]:
        """System prompt, the kept history (frames only for the newest) and ``turn``.

        Content is a plain string unless the message carries a frame or audio.
        """
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
            content = [*parts, {"type": "text", "text": t.text}] if parts else t.text
            out.append({"role": "user", "content": content})
            if t.reply:
                out.append({"role": "assistant", "content": t.reply})
        return out

    def request_body(self, turn: _Turn) -> dict[str, Any]:
        c = self.config
        return {"model": c.model, "messages": self.messages(turn), "max_tokens": c.max_tokens,
                "temperature": c.temperature, "stream": c.stream, **dict(c.extra_body)}

    # -- HTTP ------------------------------------------------------------------------
    def _request(self, body: dict[str, Any], began: float) -> str:
        """One reply, retrying 429/5xx with backoff and jitter inside the chunk budget."""
        c = self.config
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = self._stream(body) if c.stream else self._complete(body)
            except _Retry as retry:
                delay = retry.after_s if retry.after_s is not None else (
                    c.backoff_s * 2 ** (attempt - 1) * (0.5 + self._rng.random()))
                if self._now() + delay - began >= c.chunk_budget_s:
                    self._attempts = attempt
                    raise _with_attempts(retry.error, attempt) from None
                logger.info("model server busy (%s); retry %d in %.2f s", retry, attempt, delay)
                self._wait(delay)
                continue
            self._attempts = attempt
            return reply

    def _complete(self, body: dict[str, Any]) -> str:
        with self._errors(body):
            response = self._client.post(self.config.url, json=body)
            self._check(response, body)
            try:
                return response.json()["choices"][0]["message"].get("content") or ""
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                raise self._malformed(f"not a chat completion: {response.text[:120]!r}") from exc

    def _stream(self, body: dict[str, Any]) -> str:
        reply, state = "", ChatStream()
        with self._errors(body), \
                self._client.stream("POST", self.config.url, json=body) as response:
            if response.status_code >= 400:
                response.read()
            self._check(response, body)
            try:
                for delta in chat_deltas(sse_events(response.iter_lines()), state):
                    reply += delta
                    token, _ = parse_control(reply)
                    if token in (ControlToken.LISTEN, ControlToken.TURN_EOS):
                        return reply  # nothing more to read: closing stops the generation
            except StreamError as exc:
                raise self._malformed(f"an error inside the stream: {exc}",
                                      _parts_hint(body)) from None
        if not state.done and not reply:
            raise self._malformed("the stream ended without a reply and without [DONE], so "
                                  "the server failed while generating (its log says why)",
                                  _parts_hint(body))
        if not state.done:
            logger.debug("stream from %s ended without [DONE] after %d chars",
                         self.config.url, len(reply))
        return reply

    @contextmanager
    def _errors(self, body: dict[str, Any]) -> Iterator[None]:
        import httpx

        url = self.config.url
        try:
            yield
        except httpx.ConnectError as exc:
            raise BackendUnavailable(
                f"cannot connect to the model server at {url}: start the server (vLLM, SGLang, "
                f"llama.cpp server, Ollama) or pass the right base_url") from exc
        except httpx.TimeoutException as exc:
            raise BackendTimeout(
                f"the model server at {url} did not answer within {self.config.timeout_s:g} s; "
                f"raise timeout_s or serve a smaller model") from exc
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise BackendUnavailable(
                f"the model server at {url} closed the connection mid-answer ({exc}); "
                f"check that it is still running (its log has the reason)") from exc
        except httpx.HTTPError as exc:
            raise BackendUnavailable(
                f"the request to the model server at {url} failed: {exc}") from exc

    def _check(self, response, body: dict[str, Any]) -> None:
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
        parts = _parts_hint(body)
        if parts and status not in (401, 403, 404, 429):
            hint = parts
        error = BackendError(f"the model server at {url} answered HTTP {status}"
                             f"{f' ({detail})' if detail else ''}: {hint}")
        if status in _RETRYABLE:
            raise _Retry(error, _retry_after(response))
        raise error

    def _malformed(self, what: str, hint: str = "") -> BackendOutputError:
        return BackendOutputError(
            f"the model server at {self.config.url} sent no usable completion: {what}; "
            f"{hint or 'check that it is an OpenAI-compatible endpoint and read its log'}")


def _parts_hint(body: dict[str, Any]) -> str:
    """The setting to change when a request carried parts the server may not take."""
    kinds = {p.get("type") for m in body.get("messages", []) if isinstance(m.get("content"), list)
             for p in m["content"]}
    carried = [(what, setting) for kind, what, setting in (
        ("image_url", "image", "supports_images=False"),
        ("input_audio", "audio", "supports_audio=False")) if kind in kinds]
    if not carried:
        return ""
    what = " and ".join(w for w, _ in carried)
    settings = " and ".join(s for _, s in carried)
    return (f"the request carried {what} parts, which a text-only model's chat template "
            f"cannot take: if this server's model cannot, set {settings}")


def _words(text: str) -> str:
    return " ".join("".join(ch for ch in text.lower() if ch.isalnum() or ch.isspace()).split())


def _repeats(text: str, said: str) -> bool:
    """``text``'s words appear, in order and together, in what was ``said``."""
    return f" {_words(text)} " in f" {_words(said)} "


def _whole_sentences(text: str) -> str:
    """``text`` up to its last sentence end, so a reply cut by max_tokens is not spoken
    mid-sentence (all of it when it has no sentence end)."""
    cut = max(text.rfind(p) for p in ".!?")
    return text[:cut + 1] if cut > 0 else text


def _with_attempts(error: BackendError, attempts: int) -> BackendError:
    if attempts == 1:
        return error
    return type(error)(f"{error} (after {attempts} attempts within the chunk budget)")


def _retry_after(response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None  # absent, or an HTTP date (servers here send seconds)


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
