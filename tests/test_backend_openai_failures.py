"""Every way a chat-completions server fails, against the stand-in server on 127.0.0.1.

Issue 18's "Why", one regression test per failure (named in each docstring), plus what a
real server cannot be made to do on demand: 429/5xx with and without ``Retry-After``,
slow and broken streams, malformed chunks, multi-line ``data:`` fields. Retry waits go
through a fake stopwatch, so nothing here sleeps.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import numpy as np
import pytest

from venus.backends import ChunkInput, OpenAICompatibleBackend, OpenAICompatibleConfig
from venus.backends.sse import SSEEvent, sse_events
from venus.errors import BackendError, BackendOutputError, BackendTimeout, BackendUnavailable
from venus.events import ControlToken
from venus.notebook.standin_server import Scripted, StandInChatServer, sse_text


class FakeTime:
    """The backend's stopwatch and pause: time moves only when the backend waits."""

    def __init__(self) -> None:
        self.t, self.waits = 0.0, []

    def now(self) -> float:
        return self.t

    def wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.t += seconds


@pytest.fixture
def server() -> Iterator[StandInChatServer]:
    with StandInChatServer(reply=lambda request: "<|listen|>") as stand_in:
        yield stand_in


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


def _backend(server: StandInChatServer, clock: FakeTime | None = None, **kw):
    clock = clock or FakeTime()
    return OpenAICompatibleBackend(OpenAICompatibleConfig(base_url=server.base_url, **kw),
                                   now=clock.now, wait=clock.wait)


def _frame() -> np.ndarray:
    return np.full((48, 64, 3), 128, np.uint8)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- content a text-only chat template cannot take --------------------------------------
def test_text_only_server_answers_plain_string_content():
    """Why: the same message with plain string content is answered at once."""
    with StandInChatServer(reply=lambda r: "<|speak|> The color of a red square is red.",
                           text_only=True) as server, _backend(server) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), "what colour is it?"))
    assert decision.token is ControlToken.SPEAK
    assert decision.text == "The color of a red square is red."


@pytest.mark.parametrize("stream", [True, False])
def test_parts_rejected_by_a_text_only_template_name_the_setting(stream):
    """Why: every request with content parts rejected (500, or a 200 stream that is empty)."""
    with StandInChatServer(text_only=True) as server, _backend(server, stream=stream) as backend, \
            pytest.raises(BackendError, match="supports_images=False") as caught:
        backend.decide(ChunkInput(0.0, 1.0, (_frame(),), "hello"))
    message = str(caught.value)
    assert server.base_url in message and "image parts" in message
    if stream:  # the 200 stream with nothing in it, not even [DONE]
        assert isinstance(caught.value, BackendOutputError) and "without [DONE]" in message
    else:  # the server's own words
        assert 'can only concatenate str (not "list") to str' in message


def test_audio_parts_rejected_name_supports_audio():
    with StandInChatServer(text_only=True) as server, \
            _backend(server, supports_audio=True, supports_images=False) as backend, \
            pytest.raises(BackendOutputError, match="audio parts.*supports_audio=False"):
        backend.decide(ChunkInput(0.0, 1.0, (), "hi", audio=np.zeros(16_000, np.float32)))


# -- streams that do not carry a completion ---------------------------------------------
def test_an_empty_stream_is_an_error_not_a_listen(server):
    """Why: HTTP 200 and an empty stream was read as <|listen|>, with no error anywhere."""
    server.script(Scripted(events=""))
    with _backend(server, image_chunks=0) as backend, \
            pytest.raises(BackendOutputError, match="ended without a reply and without"):
        backend.decide(ChunkInput(0.0, 1.0, (), "hello"))


def test_done_with_no_content_is_the_model_saying_nothing(server):
    server.script(Scripted(events="data: [DONE]\n\n"))
    with _backend(server) as backend:
        assert backend.decide(ChunkInput(0.0, 1.0)).token is ControlToken.LISTEN


def test_a_stream_cut_short_after_content_keeps_the_content(server):
    server.script(Scripted(events=sse_text("<|speak|> Red.", done=False)))
    with _backend(server) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), "colour?"))
    assert (decision.token, decision.text) == (ControlToken.SPEAK, "Red.")


@pytest.mark.parametrize("events, words", [
    ('data: {"error": {"message": "CUDA out of memory"}}\n\n', "CUDA out of memory"),
    ('event: error\ndata: {"message": "context window exceeded"}\n\n', "context window exceeded"),
    ('data: {"object": "chat.completion.chunk", "choi\n\n', "not JSON"),
    ('data: [1, 2]\n\n', "not a completion chunk"),
])
def test_errors_and_garbage_inside_the_stream_carry_the_servers_words(server, events, words):
    server.script(Scripted(events=sse_text("<|spe", done=False) + events))
    with _backend(server) as backend, pytest.raises(BackendOutputError, match=words) as caught:
        backend.decide(ChunkInput(0.0, 1.0))
    assert "an error inside the stream" in str(caught.value)


def test_a_body_that_is_not_a_completion(server):
    server.script(Scripted(body='{"hello": 1}'))
    with _backend(server, stream=False) as backend, \
            pytest.raises(BackendOutputError, match="not a chat completion"):
        backend.decide(ChunkInput(0.0, 1.0))


# -- server-sent events by the standard -------------------------------------------------
def test_multi_line_data_fields_are_joined(server):
    """Why: multi-line ``data:`` fields were not joined (each line parsed on its own)."""
    server.script(Scripted(events=sse_text("<|speak|> Two lines of JSON.", multiline=True)))
    with _backend(server) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), "hi"))
    assert (decision.token, decision.text) == (ControlToken.SPEAK, "Two lines of JSON.")


def test_sse_events_follow_the_standard():
    lines = [": keep-alive", "", "data: one", "data:two", "data:  three", "", "event: error",
             "data", "id: 7", "", "retry: 100", "unknown: x", "", "data: unfinished"]
    assert list(sse_events(lines)) == [
        SSEEvent("one\ntwo\n three"),          # joined with newlines; one space dropped
        SSEEvent("", "error", "7"),            # a bare "data" is an empty value
    ]  # an event with no data is not dispatched; the unfinished last one is discarded


# -- retries: 429 and 5xx, with backoff and jitter, inside the chunk budget --------------
def test_429_is_retried_after_the_servers_retry_after(server, clock):
    """Why: there was no retry on 429/5xx."""
    server.script(Scripted(status=429, body='{"error": "slow down"}',
                           headers=(("Retry-After", "0.2"),)), "<|speak|> Back.")
    with _backend(server, clock) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), "hi"))
        assert backend.last.attempts == 2 and backend.last.raw == "<|speak|> Back."
    assert decision.text == "Back." and clock.waits == [0.2] and len(server.requests) == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_is_retried_with_exponential_backoff_and_jitter(server, clock, status):
    server.script(*[Scripted(status=status, body="busy")] * 3, "<|listen|>")
    with _backend(server, clock, backoff_s=0.05) as backend:
        assert backend.decide(ChunkInput(0.0, 1.0)).token is ControlToken.LISTEN
    assert len(clock.waits) == 3
    for i, waited in enumerate(clock.waits):
        assert 0.5 * 0.05 * 2 ** i <= waited < 1.5 * 0.05 * 2 ** i
    assert len({round(w / 2 ** i, 6) for i, w in enumerate(clock.waits)}) == 3  # jittered


def test_retries_stop_at_the_chunk_budget(server, clock):
    server.reply = lambda request: "unused"
    server.script(*[Scripted(status=503, body='{"error": {"message": "overloaded"}}')] * 20)
    with _backend(server, clock, backoff_s=0.05, chunk_budget_s=1.0) as backend, \
            pytest.raises(BackendError, match=r"HTTP 503 \(overloaded\).*after \d+ attempts"):
        backend.decide(ChunkInput(0.0, 1.0))
    assert sum(clock.waits) < 1.0 and 3 <= len(clock.waits) <= 5
    assert len(server.requests) == len(clock.waits) + 1


def test_a_retry_after_beyond_the_budget_fails_at_once(server, clock):
    server.script(Scripted(status=429, body="{}", headers=(("Retry-After", "30"),)))
    with _backend(server, clock) as backend, pytest.raises(BackendError, match="HTTP 429"):
        backend.decide(ChunkInput(0.0, 1.0))
    assert clock.waits == [] and len(server.requests) == 1


@pytest.mark.parametrize("status, body, match", [
    (404, '{"error": {"message": "model not found"}}',
     r"HTTP 404 \(model not found\).*ends in /v1"),
    (401, '{"error": "bad key"}', r"HTTP 401 \(bad key\).*api_key"),
    (400, '{"detail": "max_tokens too large"}', r"HTTP 400 \(max_tokens too large\)"),
])
@pytest.mark.parametrize("stream", [True, False])
def test_client_errors_are_translated_and_not_retried(server, clock, status, body, match, stream):
    server.script(Scripted(status=status, body=body))
    with _backend(server, clock, stream=stream) as backend, \
            pytest.raises(BackendError, match=match):
        backend.decide(ChunkInput(0.0, 1.0))
    assert clock.waits == [] and len(server.requests) == 1


# -- unreachable and slow servers -------------------------------------------------------
def test_connection_refused_names_the_url_and_is_not_retried(clock):
    url = f"http://127.0.0.1:{_free_port()}/v1"
    backend = OpenAICompatibleBackend(OpenAICompatibleConfig(base_url=url), now=clock.now,
                                      wait=clock.wait)
    with backend, pytest.raises(BackendUnavailable,
                                match=f"cannot connect to the model server at {url}.*start the"):
        backend.decide(ChunkInput(0.0, 1.0))
    assert clock.waits == []


@pytest.mark.parametrize("answer", [Scripted(stall=True),
                                    Scripted(events=sse_text("<|spe", done=False), stall=True)],
                         ids=["no-answer", "slow-stream"])
def test_a_server_that_stops_sending_times_out(server, answer):
    server.script(answer)
    with _backend(server, timeout_s=0.2) as backend, \
            pytest.raises(BackendTimeout, match=r"did not answer within 0.2 s; raise timeout_s"):
        backend.decide(ChunkInput(0.0, 1.0))


def test_the_stand_in_scripts_what_it_sends(server):
    """The stand-in's own contract: scripted answers first, then ``reply``."""
    server.script("<|speak|> one")
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(float(i), i + 1.0, (), "hi")).token for i in range(2)]
    assert got == [ControlToken.SPEAK, ControlToken.LISTEN]
    assert json.loads(json.dumps(server.requests[0]))["stream"] is False
