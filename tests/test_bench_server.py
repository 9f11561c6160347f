"""`venus bench server` against the stand-in server (the real llama.cpp run is a benchmark)."""

from __future__ import annotations

import json

import pytest

from venus.bench.server import conversation, token_form
from venus.cli import main
from venus.notebook.standin_server import StandInChatServer


@pytest.mark.parametrize("raw, form", [
    ("<|speak|> Hi", "exact token first"), ("<|listen|", "exact token first"),
    ("Sure. <|listen|>", "exact token later"),
    ("[speak] Hi", "escaped or bracketed"), ("Listen.", "bare word"),
    ("It is red.", "no token"), ("  ", "empty"),
])
def test_token_form(raw, form):
    assert token_form(raw) == form


def test_conversation_asks_each_question_over_two_seconds():
    seconds = conversation(2, 3, seed=0)
    assert len(seconds) == 1 + 2 * (2 + 3)
    assert seconds[1][1] is True and seconds[2][1] is False and seconds[2][0].endswith("?")


def _answer_questions(request) -> str:
    said = request["messages"][-1]["content"].split("user: ", 1)[-1]
    return f"<|speak|> You asked: {said}" if said.endswith("?") else "<|listen|>"


def test_bench_server_prints_and_writes_the_figures(tmp_path, capsys):
    with StandInChatServer(reply=_answer_questions) as server:
        code = main(["bench", "server", "--base-url", server.base_url, "--questions", "2",
                     "--gap", "2", "--clients", "--client-runs", "2",
                     "--json", str(tmp_path / "b.json")])
    assert code == 0
    figures = json.loads((tmp_path / "b.json").read_text())
    assert figures["chunks"] == 9 and figures["questions"] == figures["answered"] == 2
    assert figures["request_ms_p95"] >= figures["request_ms_p50"] > 0
    assert figures["token_forms"] == {"exact token first": 9}
    assert set(figures["client_ms_p50"]) >= {"ours"} and figures["clients_agree"]
    assert "answered 2/2 questions" in capsys.readouterr().out
