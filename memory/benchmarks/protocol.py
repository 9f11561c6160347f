"""The causal protocol for benchmark probes, and scoring by each benchmark's rules.

`run_probes` asks every `Probe` of `memory.benchmarks.formats` at its own media time
(``memory.answer(question, at=ask_at)``): the store's cutoff guarantees the reply uses
nothing after that time, and each result records the latest evidence time so a run can
prove it (``leakage`` must be 0). Multiple-choice probes are answered by the option the
answerer names (a generative backend says "B") or, with the extractive default, by the
option closest in embedding space to the retrieved evidence.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.benchmarks.formats import Probe

__all__ = ["ProbeResult", "ask", "found", "is_correct", "run_probes", "score_probes"]

_LEADING_LETTER = re.compile(r"^\s*\(?([A-Z])\b[).:]?")
YES_NO_TASKS = ("SSR", "CRR")  # OVO-Bench forward tasks answered Yes/No


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    asked_at: float
    response: str
    correct: bool
    evidence_end: float          # the latest time any cited or recent moment reaches
    evidence_hit: bool | None    # a citation overlaps the probe's evidence span (if known)
    extras: dict[str, Any] = field(default_factory=dict)  # e.g. a proactive dialog history


def is_correct(probe: Probe, response: str) -> bool:
    """The benchmark's own rule: option letter, count (OVO REC), Yes/No, or short text."""
    answer = probe.answer.strip()
    if probe.options or re.fullmatch(r"[A-Z]", answer):
        match = _LEADING_LETTER.match(response)
        return bool(match) and match.group(1) == answer.upper()
    if probe.task == "REC":
        return "".join(re.findall(r"\d+", response)) == answer
    return answer.lower() in response.lower()


def _choose(probe: Probe, text: str, evidence: str, embedder: Any) -> str:
    if not probe.options:
        return text
    named = _LEADING_LETTER.match(text)
    if named and ord(named.group(1)) - 65 < len(probe.options):
        return named.group(1)
    if not evidence.strip():
        return "A"
    vectors = np.asarray(embedder.embed([evidence, *probe.options]), np.float32)
    return chr(65 + int(np.argmax(vectors[1:] @ vectors[0])))


def found(reply: Any) -> bool:
    """Did the memory find something to answer from? ``Answer.found`` where the answer
    API has it, else whether it cited any moment."""
    flag = getattr(reply, "found", None)
    return bool(reply.citations) if flag is None else bool(flag)


def respond(probe: Probe, reply: Any, embedder: Any) -> str:
    """What the system answers, in the form the benchmark asks for: an option letter for
    multiple choice, Yes/No for yes/no tasks, else the reply's text."""
    if probe.task in YES_NO_TASKS:
        return "Yes" if found(reply) else "No"
    moments = list(reply.citations) + ([reply.recent] if reply.recent else [])
    return _choose(probe, reply.text, " ".join(m.text for m in moments), embedder)


def ask(memory: Any, probe: Probe, k: int = 5,
        correct: Callable[[Probe, str], bool] | None = None) -> ProbeResult:
    """Ask one probe at its own time on ``memory`` (which holds the probe's video)."""
    at = probe.ask_at if probe.ask_at is not None else memory.duration
    reply = memory.answer(probe.prompt(), at=at, k=k)
    response = respond(probe, reply, memory.models.embedder)
    hit = None
    if probe.evidence is not None:
        lo, hi = probe.evidence
        hit = any(m.start < hi and m.end > lo for m in reply.citations)
    moments = list(reply.citations) + ([reply.recent] if reply.recent else [])
    end = max((m.end for m in moments), default=0.0)
    ok = (correct or is_correct)(probe, response) if probe.answer else False
    return ProbeResult(probe, at, response, ok, end, hit)


def run_probes(memory: Any, probes: Sequence[Probe], k: int = 5) -> list[ProbeResult]:
    """Ask each probe at its time on ``memory`` (already holding the probe's video)."""
    return [ask(memory, probe, k) for probe in probes]


def score_probes(results: Sequence[ProbeResult]) -> dict[str, Any]:
    """Accuracy per benchmark split and task, evidence recall, and leakage (must be 0)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        p = r.probe
        groups[f"{p.benchmark}/{p.split or '-'}"].append(r.correct)
        groups[f"{p.benchmark}/{p.split or '-'}/{p.task or '-'}"].append(r.correct)
    hits = [r.evidence_hit for r in results if r.evidence_hit is not None]
    return {
        "accuracy": {g: sum(v) / len(v) for g, v in sorted(groups.items())},
        "evidence_recall": sum(hits) / len(hits) if hits else None,
        "leakage": sum(r.evidence_end > r.asked_at + 1e-6 for r in results),
        "n": len(results),
    }


def with_needles(chunks, probes: Sequence[Probe]):
    """Yield ``chunks`` with the frames inside each V-NIAH probe's evidence span replaced
    by its needle image (resized to the frame size), so the haystack carries the needle."""
    from PIL import Image

    spans = [(p.evidence, p.extras["image"]) for p in probes if p.evidence and "image" in p.extras]
    cache: dict[tuple[str, tuple[int, int]], np.ndarray] = {}
    for chunk in chunks:
        frames = []
        for frame in chunk.frames:
            image = next((img for (lo, hi), img in spans if lo <= frame.time < hi), None)
            if image is not None:
                size = frame.size
                if (image, size) not in cache:
                    with Image.open(image) as im:
                        cache[(image, size)] = np.asarray(im.convert("RGB").resize(size))
                frame = type(frame)(frame.time, cache[(image, size)])
            frames.append(frame)
        yield type(chunk)(chunk.index, chunk.start, chunk.end, tuple(frames), chunk.audio,
                          chunk.has_audio)
