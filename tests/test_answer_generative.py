"""`ServerAnswerer`: a generative reply from an OpenAI-compatible server (here the
stand-in server, a real HTTP endpoint on 127.0.0.1), kept only when it cites times the
evidence holds, the extractive reply (and why) otherwise."""

from __future__ import annotations

import json

import pytest
from test_answering_package import FakeSource

from memory.answering import AnswerOptions, ExtractiveAnswerer, ServerAnswerer
from memory.answering.generative import cited_times
from memory.answering.pipeline import answer
from venus.notebook.standin_server import Scripted, StandInChatServer

QUESTION = "How many moons does Saturn have?"


@pytest.fixture
def server():
    with StandInChatServer(reply=lambda request: "NOT IN EVIDENCE") as s:
        yield s


def _ask(server, question=QUESTION, port=None):
    source = FakeSource(AnswerOptions())
    source.answerer = ServerAnswerer(server.base_url if port is None else
                                     f"http://127.0.0.1:{port}/v1", "stand-in", timeout_s=5.0)
    return answer(source, question, 30.0, 3)


def _extractive(question=QUESTION):
    return answer(FakeSource(AnswerOptions()), question, 30.0, 3).text


def test_the_times_a_reply_cites_are_read():
    assert cited_times("At 1:29 it was said, and again at 1:02:03 (not 10:75, 3.14 or "
                       "1:29 twice).") == [89.0, 3723.0]


def test_a_reply_citing_the_evidence_is_the_answer(server):
    server.script("At 0:21 the lecturer said Saturn has 146 known moons.")
    reply = _ask(server)
    assert reply.found and reply.text == "At 0:21 the lecturer said Saturn has 146 known moons."
    assert reply.extras["answered_by"] == "stand-in" and reply.extras["cited_times"] == [21.0]
    assert "fallback" not in reply.extras
    sent = "\n".join(server.messages_text())
    assert "[0:21] said: Saturn has 146 known moons." in sent  # the lead unit, with its time
    assert f"Question: {QUESTION}" in sent and "m:ss" in sent
    body = server.requests[-1]
    assert body["model"] == "stand-in" and body["stream"] is False


@pytest.mark.parametrize("scripted, why", [
    ("At 5:40 Saturn has 83 moons.", "off the evidence"),  # a time the evidence lacks
    ("Saturn has 146 moons.", "off the evidence"),  # cites nothing
    ("NOT IN EVIDENCE", "no answer in the evidence"),
    (Scripted(status=500, body='{"error": {"message": "boom"}}'), "HTTP 500"),
    (Scripted(status=200, body="not json"), "malformed"),
    ("   ", "empty"),
])
def test_an_unusable_reply_falls_back_to_the_quote_and_says_why(server, scripted, why):
    server.script(scripted)
    reply = _ask(server)
    assert reply.found and reply.text == _extractive()
    assert why in reply.extras["fallback"] and reply.extras["answered_by"] == "extractive"


def test_a_server_that_is_gone_falls_back(server):
    port = server.port
    server.close()
    reply = _ask(server, port=port)
    assert reply.text == _extractive() and "ConnectError" in reply.extras["fallback"]


def test_a_time_anchored_question_is_written_by_the_server_too(server):
    server.script("At 0:11 it was said that the hive keeps a steady temperature.")
    reply = _ask(server, "What was said at 0:12?")
    assert reply.extras["anchored_answer"] and reply.extras["cited_times"] == [11.0]
    assert reply.text.startswith("At 0:11 it was said that the hive")


def test_without_a_server_the_memory_quotes_as_before():
    source = FakeSource(AnswerOptions())
    assert isinstance(source.answerer, ExtractiveAnswerer)
    reply = answer(source, QUESTION, 30.0, 3)
    assert "answered_by" not in reply.extras and "146 known moons" in reply.text
    assert json.dumps(reply.extras)  # extras stay plain data
