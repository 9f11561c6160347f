"""OpenAICompatibleBackend against a real chat-completions server on 127.0.0.1.

The server (http.server in a thread) speaks the API, streaming included, and records
every request so the tests can check what was sent as well as what was parsed.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from PIL import Image

from venus.backends import (
    BackendError,
    ChunkInput,
    OpenAICompatibleBackend,
    OpenAICompatibleConfig,
    parse_control,
)
from venus.events import ControlToken


@dataclass
class Reply:
    content: str = "<|listen|>"
    status: int = 200
    body: str | None = None  # raw body instead of a completion (errors, garbage)
    hang: bool = False  # never answer (until the test ends)


@dataclass
class FakeServer:
    """A chat-completions server that answers from a queue of `Reply`s."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    headers: list[dict] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    url: str = ""


def _handler(server: FakeServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep pytest output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append(body)
            server.headers.append(dict(self.headers))
            reply = server.replies.pop(0) if server.replies else Reply()
            if self.path != "/v1/chat/completions":
                reply = Reply(status=404, body='{"error": {"message": "no such route"}}')
            if reply.hang:
                server.released.wait(10)
                return
            if reply.body is not None or reply.status != 200:
                self._send(reply.status, reply.body or "{}", "application/json")
            elif body.get("stream"):
                self._stream(reply.content)
            else:
                payload = {"id": "x", "object": "chat.completion", "model": body["model"],
                           "choices": [{"index": 0, "finish_reason": "stop", "message": {
                               "role": "assistant", "content": reply.content}}]}
                self._send(200, json.dumps(payload), "application/json")

        def _send(self, status: int, text: str, kind: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, content: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": keep-alive\n\n")
            pieces = [content[i:i + 3] for i in range(0, len(content), 3)]
            try:
                for piece in pieces:
                    chunk = {"object": "chat.completion.chunk",
                             "choices": [{"index": 0, "delta": {"content": piece}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading early, as it may

    return Handler


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    state.released.set()
    httpd.shutdown()
    httpd.server_close()


def _frame(color=(200, 30, 30)) -> np.ndarray:
    img = np.zeros((240, 320, 3), np.uint8)
    img[:] = color
    return img


def _backend(server: FakeServer, **kw) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(OpenAICompatibleConfig(base_url=server.url, model="qwen-omni",
                                                          api_key="sk-test", **kw))


@pytest.mark.parametrize("stream", [True, False])
def test_one_second_is_sent_and_the_decision_parsed(server, stream):
    server.replies = [Reply("<|listen|>"), Reply("<|speak|> The slide shows a red square.<|turn_eos|>")]
    with _backend(server, stream=stream) as backend:
        first = backend.decide(ChunkInput(0.0, 1.0, (_frame(),), "what is on the"))
        second = backend.decide(ChunkInput(1.0, 2.0, (_frame((0, 0, 200)),), "slide?"))
    assert first.token is ControlToken.LISTEN and first.text == ""
    assert second.token is ControlToken.SPEAK
    assert second.text == "The slide shows a red square."
    assert second.latency_s > 0

    body = server.requests[1]
    assert body["model"] == "qwen-omni" and body["stream"] is stream
    assert server.headers[1]["Authorization"] == "Bearer sk-test"
    system, *rest = body["messages"]
    assert system["role"] == "system"
    assert all(t in system["content"] for t in ("<|listen|>", "<|speak|>", "<|turn_eos|>"))
    assert "Venus" in system["content"]
    # History: second 0 (text only now), the assistant's token, then second 1 with its frame.
    assert [m["role"] for m in rest] == ["user", "assistant", "user"]
    assert rest[1]["content"] == "<|listen|>"
    old_parts, new_parts = rest[0]["content"], rest[2]["content"]
    assert [p["type"] for p in old_parts] == ["text"]
    assert [p["type"] for p in new_parts] == ["image_url", "text"]
    assert "slide?" in new_parts[1]["text"] and "[1s-2s]" in new_parts[1]["text"]
    url = new_parts[0]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    assert image.shape == (240, 320, 3)
    assert abs(int(image[..., 2].mean()) - 200) < 10 and image[..., 0].mean() < 10  # the blue frame


def test_audio_is_sent_as_wav_for_the_newest_second_only(server):
    import wave

    tone = (0.5 * np.sin(np.linspace(0, 2 * np.pi * 220, 16_000))).astype(np.float32)
    with _backend(server, stream=False, send_audio=True) as backend:
        backend.decide(ChunkInput(0.0, 1.0, (), "hello", audio=tone))
        backend.decide(ChunkInput(1.0, 2.0, (), "there", audio=tone))
    users = [m for m in server.requests[-1]["messages"] if m["role"] == "user"]
    kinds = [[p["type"] for p in m["content"]] for m in users]
    assert kinds == [["text"], ["input_audio", "text"]]
    part = users[-1]["content"][0]["input_audio"]
    assert part["format"] == "wav"
    with wave.open(io.BytesIO(base64.b64decode(part["data"]))) as w:
        assert (w.getframerate(), w.getnchannels(), w.getnframes()) == (16_000, 1, 16_000)


def test_streaming_stops_reading_after_listen(server):
    server.replies = [Reply("<|listen|>" + " filler" * 200)]
    with _backend(server) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), ""))
    assert decision.token is ControlToken.LISTEN and decision.text == ""
    assert "(silence)" in server.requests[0]["messages"][-1]["content"][-1]["text"]


def test_reply_without_token_and_stripped_tokens(server):
    server.replies = [Reply("Sure, it is a red square."), Reply(""), Reply("[speak] Hello"),
                      Reply("turn_eos")]
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(float(i), i + 1.0)) for i in range(4)]
    assert [d.token for d in got] == [ControlToken.SPEAK, ControlToken.LISTEN,
                                      ControlToken.SPEAK, ControlToken.TURN_EOS]
    assert got[0].text == "Sure, it is a red square." and got[2].text == "Hello"


def test_history_is_bounded_and_reset(server):
    with _backend(server, history_chunks=4, stream=False) as backend:
        for i in range(12):
            backend.decide(ChunkInput(float(i), i + 1.0, (_frame(),), f"word{i}"))
        kept = [len([m for m in r["messages"] if m["role"] == "user"]) - 1
                for r in server.requests]
        assert max(kept) <= 4 and kept[:7] == [0, 1, 2, 3, 4, 3, 4]  # the oldest half goes at once
        users = [m for m in server.requests[-1]["messages"] if m["role"] == "user"]
        assert sum(p["type"] == "image_url" for m in users for p in m["content"]) == 1
        # Between drops, each request repeats the previous one's text-only prefix.
        a, b = server.requests[5]["messages"], server.requests[6]["messages"]
        assert b[:len(a) - 1] == a[:-1]
        backend.reset()
        backend.decide(ChunkInput(6.0, 7.0))
    assert len(server.requests[-1]["messages"]) == 2


def test_connection_refused_names_the_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with OpenAICompatibleBackend(OpenAICompatibleConfig(base_url=url)) as backend, \
            pytest.raises(BackendError, match=f"cannot connect to the model server at {url}"):
        backend.decide(ChunkInput(0.0, 1.0))


@pytest.mark.parametrize("status, body, match", [
    (404, '{"error": {"message": "model not found"}}', r"HTTP 404 \(model not found\).*ends in /v1"),
    (401, '{"error": "bad key"}', r"HTTP 401 \(bad key\).*api_key"),
    (500, "Internal Server Error", r"HTTP 500 \(Internal Server Error\).*server's log"),
])
@pytest.mark.parametrize("stream", [True, False])
def test_http_errors_are_translated(server, status, body, match, stream):
    server.replies = [Reply(status=status, body=body)]
    with _backend(server, stream=stream) as backend, pytest.raises(BackendError, match=match):
        backend.decide(ChunkInput(0.0, 1.0))


def test_not_a_completion_is_a_clear_error(server):
    server.replies = [Reply(body='{"hello": 1}')]
    with _backend(server, stream=False) as backend, \
            pytest.raises(BackendError, match="did not send a chat completion"):
        backend.decide(ChunkInput(0.0, 1.0))


def test_an_error_inside_the_stream_is_reported(server):
    event = json.dumps({"error": {"message": "CUDA out of memory"}})
    server.replies = [Reply(body=f"data: {event}\n\n")]
    with _backend(server) as backend, pytest.raises(BackendError, match="CUDA out of memory"):
        backend.decide(ChunkInput(0.0, 1.0))


def test_timeout_is_a_clear_error(server):
    server.replies = [Reply(hang=True)]
    with _backend(server, timeout_s=0.3, stream=False) as backend, \
            pytest.raises(BackendError, match=r"did not answer within 0.3 s"):
        backend.decide(ChunkInput(0.0, 1.0))


@pytest.mark.parametrize("reply, token, text", [
    ("<|speak|> Hi there <|turn_eos|> ignored", ControlToken.SPEAK, "Hi there"),
    ("  <|turn_eos|>", ControlToken.TURN_EOS, ""),
    ("<speak> Hi", ControlToken.SPEAK, "Hi"),
    ("Listen, the answer is four.", None, "Listen, the answer is four."),
    ("listen", ControlToken.LISTEN, ""),
])
def test_parse_control(reply, token, text):
    assert parse_control(reply) == (token, text)


# -- OpenAICompatibleFrontend in a real session ------------------------------------------


def _speech_source(text: str, seconds: int):
    from memory.media import SAMPLE_RATE, Frame, VideoChunk
    from memory.models import VOICES, EspeakSynthesizer

    speech = EspeakSynthesizer().synthesize(text, voice=VOICES[0]).audio
    audio = np.zeros(seconds * SAMPLE_RATE, np.float32)
    audio[SAMPLE_RATE:SAMPLE_RATE + len(speech)] = speech
    return [VideoChunk(i, float(i), i + 1.0, (Frame(i + 0.5, _frame()),),
                       audio[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]) for i in range(seconds)]


@pytest.mark.slow
def test_frontend_in_a_session_sends_words_and_frames(server):
    from venus.clock import SimulatedClock
    from venus.events import ControlTokenEmitted, SpeechQueued, UserWordsTranscribed
    from venus.frontend import Frontend
    from venus.frontend.openai_compat import OpenAICompatibleFrontend
    from venus.perception import UserPerception
    from venus.runtime.session import Session, SessionOptions

    server.replies = [Reply("<|listen|>")] * 4 + [Reply("<|speak|> A red square.")] + [
        Reply("<|turn_eos|>")] * 2
    frontend = OpenAICompatibleFrontend(OpenAICompatibleConfig(base_url=server.url),
                                        UserPerception(faces=False))
    assert isinstance(frontend, Frontend)
    source = _speech_source("What is on the slide?", 7)
    session = Session(frontend, source, clock=SimulatedClock(),
                      options=SessionOptions(drain_s=0.0))
    session.run()
    frontend.close()
    tokens = [e.token for e in session.timeline.events(ControlTokenEmitted)]
    assert tokens == [ControlToken.LISTEN] * 4 + [ControlToken.SPEAK] + [ControlToken.TURN_EOS] * 2
    assert [e.text for e in session.timeline.events(SpeechQueued)] == ["A red square."]
    heard = " ".join(e.text for e in session.timeline.events(UserWordsTranscribed)).lower()
    assert "slide" in heard
    sent = " ".join(m["content"][-1]["text"] for r in server.requests
                    for m in r["messages"][-1:])
    assert "slide" in sent.lower()  # the words reached the model, in their second
    assert all(m["content"][0]["type"] == "image_url" for r in server.requests
               for m in r["messages"][-1:])


def test_frontend_records_a_dead_server_once_and_listens():
    from venus.events import ErrorRecorded
    from venus.frontend.base import SessionView
    from venus.frontend.openai_compat import OpenAICompatibleFrontend
    from venus.perception import UserPerception
    from venus.testing import fake_chunk

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    frontend = OpenAICompatibleFrontend(
        OpenAICompatibleConfig(base_url=f"http://127.0.0.1:{port}/v1"), UserPerception(faces=False))
    errors = []
    for i in range(3):
        view = SessionView("s", float(i), i, False, (), (), (), (), ())
        decision = frontend.step(fake_chunk(i, has_audio=True), view)
        assert decision.token is ControlToken.LISTEN and decision.speech is None
        errors += [e for e in decision.perceived if isinstance(e, ErrorRecorded)]
    frontend.close()
    assert len(errors) == 1 and f"127.0.0.1:{port}" in errors[0].message
