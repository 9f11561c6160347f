"""`ServerAnswerer`: a generative reply from any OpenAI-compatible server, kept honest.

Beside `memory.answering.reply` (its fallback), under the pipeline. The way a researcher
with a GPU server uses the toolkit: vLLM, SGLang, the llama.cpp server or Ollama serve a
model; the memory still decides whether it holds an answer and which units are best
(the ranker), and the server only writes the reply from them. It is sent the question
and the ranked evidence units with their times; the times its reply cites (``m:ss``) are
parsed and only those the evidence holds are kept. When the server fails (refused,
timed out, an HTTP error, an empty or malformed reply) or answers off the evidence (no
cited time the evidence holds), the extractive reply is given instead and the `Reply`
says why, which the pipeline puts in `Answer.extras` (``"fallback"``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from memory.answering.reply import ExtractiveAnswerer, Reply
from memory.evidence import SAID, SHOWN, Evidence, Moment, format_time
from memory.timeparse import clock_seconds

__all__ = ["SYSTEM_PROMPT", "ServerAnswerer", "cited_times"]

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You answer questions about a video from evidence taken from it: sentences said and "
    "lines shown on screen, each with its time (m:ss). Use only the evidence. Answer in "
    "one or two short sentences that lead with the fact, and cite the time of the "
    "evidence you use, written m:ss (for example: At 1:29 ...). If the evidence does not "
    "answer the question, reply exactly: NOT IN EVIDENCE")
_NO_ANSWER = "NOT IN EVIDENCE"
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}:[0-5]\d(?::[0-5]\d)?)(?![\d:])")
_HELD_SLACK_S = 1.0


def cited_times(text: str) -> list[float]:
    """The media times ``text`` cites as ``m:ss`` or ``h:mm:ss``, in order, each once."""
    return list(dict.fromkeys(clock_seconds(m) for m in _CLOCK.findall(text)))


@dataclass
class ServerAnswerer:
    """An `Answerer` (and reply writer) on an OpenAI-compatible chat-completions server.

    ``base_url`` ends in ``/v1`` (vLLM/SGLang ``http://host:8000/v1``, llama.cpp
    ``http://host:8080/v1``, Ollama ``http://host:11434/v1``); ``model`` is the served
    model's name. ``units``: how many ranked evidence units are sent (the lead moment's,
    best first, then the other cited moments' transcripts); ``fallback`` writes the reply
    when the server's cannot be used."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 30.0
    units: int = 8
    max_tokens: int = 160
    temperature: float = 0.0
    fallback: ExtractiveAnswerer = field(default_factory=ExtractiveAnswerer)

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str:
        return self.reply(question, moments, recent).text

    def reply(self, question: str, moments: Sequence[Moment],
              recent: Moment | None = None) -> Reply:
        """The server's reply when it cites the evidence, else the extractive one and why."""
        evidence = self.evidence(moments)
        if not evidence:
            return self._fall_back(question, moments, recent, "no evidence units to send")
        try:
            content = self._complete(question, evidence)
        except _ServerFailed as exc:
            return self._fall_back(question, moments, recent, f"the server failed: {exc}")
        if _NO_ANSWER in content:
            return self._fall_back(question, moments, recent,
                                   "the server found no answer in the evidence")
        held = [t for t in cited_times(content) if _holds(evidence, t)]
        if not held:
            return self._fall_back(question, moments, recent, "the server's reply cites no "
                                   "time the evidence holds (off the evidence)")
        return Reply(" ".join(content.split()), tuple(held), answered_by=self.model)

    def evidence(self, moments: Sequence[Moment]) -> list[Evidence]:
        """The units sent, ranked: the lead moment's scored units, then one per other
        cited moment (what was said in it, else what was shown), at most ``units``."""
        out = list(moments[0].evidence) if moments else []
        for m in moments[1:]:
            text = m.transcript or m.ocr_text
            if text:
                out.append(Evidence(SAID if m.transcript else SHOWN, text, m.start, m.end))
        return out[:self.units]

    def messages(self, question: str, evidence: Sequence[Evidence]) -> list[dict[str, str]]:
        lines = [f"[{format_time(u.start)}] {'said' if u.kind == SAID else 'shown'}: "
                 f"{' '.join(u.text.split())}" for u in evidence]
        user = "Evidence:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

    def _complete(self, question: str, evidence: Sequence[Evidence]) -> str:
        body: dict[str, Any] = {"model": self.model, "stream": False,
                                "messages": self.messages(question, evidence),
                                "max_tokens": self.max_tokens, "temperature": self.temperature}
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        url = self.base_url.rstrip("/") + "/chat/completions"
        try:  # httpx's exceptions end here: a failed server is a fallback, not a crash
            response = httpx.post(url, json=body, headers=headers, timeout=self.timeout_s)
        except httpx.TimeoutException as exc:
            raise _ServerFailed(f"no reply within {self.timeout_s:g} s") from exc
        except httpx.HTTPError as exc:
            raise _ServerFailed(f"{type(exc).__name__} at {url}") from exc
        if response.status_code != 200:
            raise _ServerFailed(f"HTTP {response.status_code}: {response.text[:200]}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _ServerFailed(f"a malformed reply: {response.text[:200]}") from exc
        if not isinstance(content, str) or not content.strip():
            raise _ServerFailed("an empty reply")
        return content.strip()

    def _fall_back(self, question: str, moments: Sequence[Moment], recent: Moment | None,
                   why: str) -> Reply:
        logger.warning("generative answer not used (%s): the extractive reply instead", why)
        return Reply(self.fallback.answer(question, moments, recent), fallback=why)


class _ServerFailed(Exception):
    """The server gave no usable reply (turned into a fallback where it is raised)."""


def _holds(evidence: Sequence[Evidence], t: float) -> bool:
    return any(u.start - _HELD_SLACK_S <= t <= u.end + _HELD_SLACK_S for u in evidence)
