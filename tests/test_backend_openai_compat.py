"""OpenAICompatibleBackend against the stand-in chat-completions server on 127.0.0.1.

`StandInChatServer` (http.server in a thread) speaks the API, streaming included, and
records every request, so the tests check what was sent as well as what was parsed.
Failure modes (retries, broken streams, a dead server) are in
test_backend_openai_failures.py.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image

from venus.backends import (
    ChunkInput,
    OpenAICompatibleBackend,
    OpenAICompatibleConfig,
    parse_control,
)
from venus.events import ControlToken
from venus.notebook.standin_server import StandInChatServer


@pytest.fixture
def server() -> Iterator[StandInChatServer]:
    with StandInChatServer(reply=lambda request: "<|listen|>") as stand_in:
        yield stand_in


def _frame(color=(200, 30, 30)) -> np.ndarray:
    img = np.zeros((240, 320, 3), np.uint8)
    img[:] = color
    return img


def _backend(server: StandInChatServer, **kw) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(OpenAICompatibleConfig(
        base_url=server.base_url, model="qwen-omni", api_key="sk-test", **kw))


@pytest.mark.parametrize("stream", [True, False])
def test_one_second_is_sent_and_the_decision_parsed(server, stream):
    server.script("<|listen|>", "<|speak|> The slide shows a red square.<|turn_eos|>")
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
    # History: second 0 (text only now: a plain string), the assistant's token, then
    # second 1 with its frame (content parts).
    assert [m["role"] for m in rest] == ["user", "assistant", "user"]
    assert rest[1]["content"] == "<|listen|>"
    old, new_parts = rest[0]["content"], rest[2]["content"]
    assert isinstance(old, str) and "what is on the" in old
    assert [p["type"] for p in new_parts] == ["image_url", "text"]
    assert "slide?" in new_parts[1]["text"] and "[1s-2s]" in new_parts[1]["text"]
    url = new_parts[0]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    assert image.shape == (240, 320, 3)
    assert abs(int(image[..., 2].mean()) - 200) < 10 and image[..., 0].mean() < 10  # the blue frame


@pytest.mark.parametrize("options", [{"image_chunks": 0}, {"supports_images": False}])
def test_a_message_with_only_text_has_string_content(server, options):
    """Why, case 1: parts were sent even with image_chunks=0; text-only templates fail."""
    with _backend(server, **options) as backend:
        backend.decide(ChunkInput(0.0, 1.0, (_frame(),), "hello"))
        backend.decide(ChunkInput(1.0, 2.0, (_frame(),), "there"))
    messages = server.requests[-1]["messages"]
    assert all(isinstance(m["content"], str) for m in messages)
    assert "there" in messages[-1]["content"]


def test_audio_is_sent_as_wav_for_the_newest_second_only(server):
    import wave

    tone = (0.5 * np.sin(np.linspace(0, 2 * np.pi * 220, 16_000))).astype(np.float32)
    with _backend(server, stream=False, supports_audio=True) as backend:
        backend.decide(ChunkInput(0.0, 1.0, (), "hello", audio=tone))
        backend.decide(ChunkInput(1.0, 2.0, (), "there", audio=tone))
    users = [m for m in server.requests[-1]["messages"] if m["role"] == "user"]
    assert isinstance(users[0]["content"], str)
    assert [p["type"] for p in users[1]["content"]] == ["input_audio", "text"]
    part = users[-1]["content"][0]["input_audio"]
    assert part["format"] == "wav"
    with wave.open(io.BytesIO(base64.b64decode(part["data"]))) as w:
        assert (w.getframerate(), w.getnchannels(), w.getnframes()) == (16_000, 1, 16_000)


def test_streaming_stops_reading_after_listen(server):
    server.script("<|listen|>" + " filler" * 200)
    with _backend(server) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), ""))
    assert decision.token is ControlToken.LISTEN and decision.text == ""
    assert "(silence)" in server.requests[0]["messages"][-1]["content"]


def test_history_is_bounded_and_reset(server):
    with _backend(server, history_chunks=4, stream=False) as backend:
        for i in range(12):
            backend.decide(ChunkInput(float(i), i + 1.0, (_frame(),), f"word{i}"))
        kept = [len([m for m in r["messages"] if m["role"] == "user"]) - 1
                for r in server.requests]
        assert max(kept) <= 4 and kept[:7] == [0, 1, 2, 3, 4, 3, 4]  # the oldest half goes at once
        users = [m for m in server.requests[-1]["messages"] if m["role"] == "user"]
        assert sum(isinstance(m["content"], list) for m in users) == 1  # one frame, the newest
        # Between drops, each request repeats the previous one's text-only prefix.
        a, b = server.requests[5]["messages"], server.requests[6]["messages"]
        assert b[:len(a) - 1] == a[:-1]
        backend.reset()
        backend.decide(ChunkInput(6.0, 7.0))
    assert len(server.requests[-1]["messages"]) == 2


# -- control tokens as real models and servers write them (rules in venus.backends.prompt)
@pytest.mark.parametrize("reply, token, text", [
    # token first
    ("<|speak|> The answer is four.", ControlToken.SPEAK, "The answer is four."),
    ("  <|turn_eos|>", ControlToken.TURN_EOS, ""),
    # escaped or stripped by the server, the chat template or the model
    ("<speak> Hi", ControlToken.SPEAK, "Hi"),
    ("[speak] Hello", ControlToken.SPEAK, "Hello"),
    ("|listen|", ControlToken.LISTEN, ""),
    ("<|speak> Hi", ControlToken.SPEAK, "Hi"),
    ("&lt;|speak|&gt; Hi", ControlToken.SPEAK, "Hi"),
    ("\\<|speak|\\> Hi", ControlToken.SPEAK, "Hi"),
    ("**<|speak|>** Hi", ControlToken.SPEAK, "Hi"),
    ("`<|listen|>`", ControlToken.LISTEN, ""),
    ("<|Turn EOS|>", ControlToken.TURN_EOS, ""),
    # the bare word only as the whole reply
    ("listen", ControlToken.LISTEN, ""),
    ("Speak.", ControlToken.SPEAK, ""),
    ("turn_eos", ControlToken.TURN_EOS, ""),
    ("Listen, the answer is four.", None, "Listen, the answer is four."),
    # token in the middle: the framing before it is dropped
    ("[3s-4s] assistant: <|speak|> It is red.", ControlToken.SPEAK, "It is red."),
    ("I will wait. <|listen|>", ControlToken.LISTEN, ""),
    # several tokens: the next one ends the text
    ("<|speak|> Hi there <|turn_eos|> ignored", ControlToken.SPEAK, "Hi there"),
    ("<|speak|> Hi <|listen|> <|speak|> again", ControlToken.SPEAK, "Hi"),
    # other special tokens are never spoken
    ("<|speak|> Hi.<|im_end|>", ControlToken.SPEAK, "Hi."),
    # no token
    ("Sure, it is a red square.", None, "Sure, it is a red square."),
    ("", None, ""),
])
def test_parse_control(reply, token, text):
    assert parse_control(reply) == (token, text)


def test_without_a_token_it_speaks_only_when_the_users_turn_ended(server):
    """The fallback: speak when the user's turn ended and the reply is non-empty."""
    server.script("It is a red square.",            # the user is still talking: listen
                  "It is a red square.",            # the user stopped: speak
                  "It is a red square, I said.",    # nothing new heard since: listen
                  "",                               # empty after a question: listen
                  "Hello!")                          # silence with no one asking: listen
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(0.0, 1.0, (), "what is", user_speaking=True)),
               backend.decide(ChunkInput(1.0, 2.0, (), "on the slide?")),
               backend.decide(ChunkInput(2.0, 3.0)),
               backend.decide(ChunkInput(3.0, 4.0, (), "and now?")),
               ]
        backend.reset()
        got.append(backend.decide(ChunkInput(0.0, 1.0)))
    assert [d.token for d in got] == [ControlToken.LISTEN, ControlToken.SPEAK,
                                      ControlToken.LISTEN, ControlToken.LISTEN,
                                      ControlToken.LISTEN]
    assert got[1].text == "It is a red square." and got[0].text == got[2].text == ""
    # The context records what the assistant did, in the protocol's words.
    assistant = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "assistant"]
    assert assistant == ["<|listen|>", "<|speak|> It is a red square.", "<|listen|>"]


def test_speak_without_words_asks_for_them_in_a_plain_request(server):
    """Small models (SmolLM2-135M) answer ``<|speak|>`` and stop: a second, plain request
    without the protocol gets the words, with the user's whole turn as its question."""
    server.script("<|listen|>", "<|speak|>", "It is red.", "<|speak|>", "<|speak|>")
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(0.0, 1.0, (), "what colour is", user_speaking=True)),
               backend.decide(ChunkInput(1.0, 2.0, (), "a red square?")),
               backend.decide(ChunkInput(2.0, 3.0)),   # keeps speaking: nothing new asked
               backend.decide(ChunkInput(3.0, 4.0, (), "and", user_speaking=True))]
    assert [(d.token, d.text) for d in got] == [
        (ControlToken.LISTEN, ""), (ControlToken.SPEAK, "It is red."), (ControlToken.SPEAK, ""),
        (ControlToken.SPEAK, "")]
    words = server.requests[2]
    assert words["messages"][0]["content"].startswith("You are Venus, a voice assistant")
    assert words["messages"][1:] == [{"role": "user", "content": "what colour is a red square?"}]
    assert len(server.requests) == 5  # one words request, for the turn that ended


def test_a_reply_the_model_repeats_is_not_spoken_again(server):
    server.script("<|speak|> The planet is red.", "<|speak|> The planet is red.",
                  "<|speak|> the planet is red", "<|speak|> Thank you!")
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(0.0, 1.0, (), "what colour?")),
               backend.decide(ChunkInput(1.0, 2.0)),
               backend.decide(ChunkInput(2.0, 3.0, (), "really", user_speaking=True)),
               backend.decide(ChunkInput(3.0, 4.0, (), "thanks"))]
    assert [d.text for d in got] == ["The planet is red.", "", "", "Thank you!"]
    assert all(d.token is ControlToken.SPEAK for d in got)
    assistant = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "assistant"]
    assert assistant == ["<|speak|> The planet is red.", "<|speak|>", "<|speak|>"]


def test_a_repeat_after_a_new_question_asks_for_new_words(server):
    server.script("<|speak|> It is red.", "<|speak|> It is red.", "Blue.", "<|speak|> No.")
    with _backend(server, stream=False) as backend:
        got = [backend.decide(ChunkInput(0.0, 1.0, (), "what colour is the square?")),
               backend.decide(ChunkInput(1.0, 2.0, (), "and the sky?")),
               backend.decide(ChunkInput(2.0, 3.0, (), "is it not green?"))]
    assert [d.text for d in got] == ["It is red.", "Blue.", "No."]  # "no" is not in "not"
    assert server.requests[2]["messages"][-1] == {"role": "user", "content": "and the sky?"}


def test_words_the_model_talked_over_are_not_a_question_to_answer(server):
    """A backchannel while the assistant speaks, and the model speaks on: when the answer
    ends, "mm-hmm" gets no words request and no reply."""
    server.script("<|speak|> Leaves make sugar.", "<|speak|>", "<|speak|>")
    with _backend(server, stream=False) as backend:
        backend.decide(ChunkInput(0.0, 1.0, (), "how do leaves eat?"))
        over = backend.decide(ChunkInput(1.0, 2.0, (), "mm-hmm", assistant_speaking=True))
        after = backend.decide(ChunkInput(2.0, 3.0))
    assert (over.token, over.text, after.token, after.text) == (
        ControlToken.SPEAK, "", ControlToken.SPEAK, "")
    assert len(server.requests) == 3 and backend.last.rule == "token"


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
    from venus.runtime import DuplexIO, Session, SessionOptions

    server.script(*["<|listen|>"] * 4, "<|speak|> A red square.", *["<|turn_eos|>"] * 2)
    frontend = OpenAICompatibleFrontend(OpenAICompatibleConfig(base_url=server.base_url))
    assert isinstance(frontend, Frontend)
    source = _speech_source("What is on the slide?", 7)
    with Session(frontend, source, clock=SimulatedClock(),
                 duplex=DuplexIO(perception=UserPerception(faces=False)),
                 options=SessionOptions(drain_s=0.0)) as session:
        session.run()
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
