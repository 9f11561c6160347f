"""A failing model server in a session: on the timeline once, said to the user once, and
the session listens on (and answers again once the server is back). Against the stand-in
server; the same with llama.cpp's real server is in test_server_llama_cpp.py.
"""

from __future__ import annotations

from venus.errors import BackendTimeout, BackendUnavailable
from venus.events import ControlToken
from venus.notebook.standin_server import StandInChatServer


def _session(frontend, chunks):
    from venus.clock import SimulatedClock
    from venus.perception import UserPerception
    from venus.runtime import DuplexIO, Session, SessionOptions

    session = Session(frontend, chunks, clock=SimulatedClock(), options=SessionOptions(drain_s=0.0),
                      duplex=DuplexIO(perception=UserPerception(faces=False)))
    try:
        return session, session.run()
    finally:
        session.duplex.close()  # the test closes the frontend itself


def _frontend(url: str, **kw):
    from venus.backends import OpenAICompatibleConfig
    from venus.frontend.openai_compat import OpenAICompatibleFrontend

    return OpenAICompatibleFrontend(OpenAICompatibleConfig(base_url=url, **kw))


def test_failures_in_a_session_are_recorded_said_once_and_listening_goes_on():
    """Why: ten failed requests, ten <|listen|> and no error on the timeline."""
    from venus.events import ControlTokenEmitted, ErrorCategory, ErrorRecorded, SpeechQueued
    from venus.frontend.failures import DEFAULT_NOTICE
    from venus.testing import fake_chunk

    with StandInChatServer(text_only=True) as server:  # a frame each second: list content
        frontend = _frontend(server.base_url)
        session, summary = _session(frontend, [fake_chunk(i, has_audio=True) for i in range(10)])
        frontend.close()
    timeline = session.timeline
    assert summary.chunks == 10 and len(server.requests) == 10
    errors = timeline.events(ErrorRecorded)
    assert [(e.source, e.category) for e in errors] == [
        ("openai_compatible", ErrorCategory.MALFORMED_OUTPUT)]
    assert server.base_url in errors[0].message and "supports_images=False" in errors[0].message
    assert [e.text for e in timeline.events(SpeechQueued)] == [DEFAULT_NOTICE]  # after 3, once
    tokens = [e.token for e in timeline.events(ControlTokenEmitted)]
    assert tokens.count(ControlToken.SPEAK) == 1 and len(tokens) == 10


def test_a_killed_stand_in_is_one_error_and_the_session_goes_on_when_it_is_back():
    from venus.events import ErrorCategory, ErrorRecorded, SpeechQueued
    from venus.frontend.failures import DEFAULT_NOTICE
    from venus.testing import fake_chunk

    server = StandInChatServer(reply=lambda r: "<|speak|> Still here." if "[8s-9s]" in
                               r["messages"][-1]["content"] else "<|listen|>").start()
    port, url = server.port, server.base_url
    revived: list[StandInChatServer] = []

    def chunks():
        for i in range(12):
            if i == 3:
                server.close()  # killed mid-session
            if i == 7:
                revived.append(StandInChatServer(reply=server.reply, port=port).start())
            yield fake_chunk(i, has_audio=True)

    frontend = _frontend(url, image_chunks=0)
    try:
        session, summary = _session(frontend, chunks())
    finally:
        frontend.close()
        for s in revived:
            s.close()
    errors = session.timeline.events(ErrorRecorded)
    assert len(errors) == 1 and errors[0].category is ErrorCategory.FRONTEND
    assert f"cannot connect to the model server at {url}" in errors[0].message
    assert "start the server" in errors[0].message
    assert summary.chunks == 12
    said = [e.text for e in session.timeline.events(SpeechQueued)]
    assert said == [DEFAULT_NOTICE, "Still here."]  # down 4 chunks: said once; then the model
    assert len(revived[0].requests) == 5  # every chunk after the restart reached the server


def test_backend_failures_record_each_kind_once_per_outage():
    from venus.frontend.failures import BackendFailures

    failures = BackendFailures("m", say_after=2)
    down = BackendUnavailable("cannot connect")
    first, _ = failures.failed(BackendUnavailable("closed mid-answer"))
    again, notice = failures.failed(down)
    slow, _ = failures.failed(BackendTimeout("slow"))
    assert [len(first), len(again), len(slow)] == [1, 0, 1] and notice is not None
    assert failures.failed(down) == ((), None)  # said once
    failures.succeeded()
    back, _ = failures.failed(down)
    assert len(back) == 1 and failures.streak == 1  # a new outage is recorded again
