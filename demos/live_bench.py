"""``venus bench live``: the app in Chromium, spoken to through a fake microphone, timed by
what the page plays.

What a person meets, measured where they meet it: ``venus app`` in a child process; Debian
Chromium (Playwright, no download) started with ``--use-file-for-fake-audio-capture`` on
one WAV per run that holds every conversation in turn, in voices held out of tuning
(Flite ``rms``, ``awb``, ``slt``: one per round); the sample lecture loaded; the
``#venus-talk`` button pressed once. The page's microphone goes through the browser's
own capture (echo cancellation, noise suppression and auto gain on) and the app's audio
socket; the reply comes back over it and plays in the page. Every 50 ms the bench
reads ``#venus-agent-state`` (listening / thinking / speaking, set by the page's own
playback); the page's script also logs when the user's voice starts and ends in the
captured audio (a frame louder than -34 dBFS) and the socket's control words.

The five conversations of a round (each part starts a fixed time after the question's
end, chosen so that it lands in the reply; one that lands outside it is counted as
such, not scored):

* ``question``: a question;
* ``followup``: a question, then a second one 1.5 s after the first ends;
* ``bargein``: a question, then an interruption 3 s after it ends (1-2 s into the reply);
* ``backchannel``: a question, then "Hmm." into the reply;
* ``other``: a question, then a remark to someone else in the room into the reply.

Keys: ``voice_to_voice_s_p50`` / ``p95`` (end of the user's speech in the captured audio
to ``speaking`` in the page), ``bargein_silence_s_p50`` / ``p95`` (the interruption's
onset to the page leaving ``speaking``), ``answered`` (first questions the page answered
by voice), ``followups_answered``, ``continued_backchannel`` and ``continued_other`` (the
reply was not stopped), ``echo_false_bargeins`` (with ``--echo``: replies stopped with
nobody speaking, the page's own voice mixed back into its microphone), ``load`` (the
1-minute load average while it ran) and the server's playout lag the page reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from venus.bench.report import BenchReport

__all__ = ["CONVERSATIONS", "DESCRIPTION", "add_arguments", "run", "talk"]

DESCRIPTION = ("the app in Chromium through a fake microphone: voice-to-voice, barge-in "
               "silence, follow-ups, backchannels and remarks to others, read from the page")

SAMPLE_RATE = 16_000
LEAD_S = 1.5    # silence before each conversation
TAIL_S = 13.0   # silence after its last part (the reply plays out)


@dataclass(frozen=True)
class Conversation:
    kind: str
    question: str
    second: str | None = None
    after_s: float = 0.0  # the second part starts this long after the question's end


CONVERSATIONS = (
    Conversation("question", "Who proposed the theory of evolution?"),
    Conversation("followup", "What shape is DNA?", "And what are the rungs made of?", 1.5),
    Conversation("bargein", "Tell me about acids and bases.",
                 "Wait, what is the pH of vinegar?", 3.0),
    Conversation("backchannel", "What does the pH scale measure?", "Hmm.", 3.0),
    Conversation("other", "What is natural selection?",
                 "Hey Sam, can you close the window, please?", 3.0),
)
VOICES = ("rms", "awb", "slt")  # Flite: the held-out family


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of the five conversations, one Flite voice each (3)")
    parser.add_argument("--echo", type=float, default=0.0,
                        help="mix the page's own voice back into its microphone at this gain "
                             "(0.3: a laptop's speaker; 0: off)")
    parser.add_argument("--no-video", action="store_true",
                        help="talk with nothing loaded (faster; the replies say so)")
    parser.add_argument("--assistant-voice", choices=("auto", "piper", "espeak"), default="auto",
                        help="the app's voice (venus app --voice; auto: Piper when installed)")
    parser.add_argument("--screenshots", metavar="DIR",
                        help="save the conversation of the first round here (app-voice.png)")
    parser.add_argument("--kinds", default=",".join(c.kind for c in CONVERSATIONS),
                        help="which conversations (comma-separated)")


def run(args: argparse.Namespace) -> BenchReport:
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - {c.kind for c in CONVERSATIONS})
    if unknown:
        raise SystemExit(f"venus bench live: no conversation {unknown}; choose from "
                         f"{', '.join(c.kind for c in CONVERSATIONS)}")
    conversations = [c for c in CONVERSATIONS if c.kind in kinds]
    work = Path(tempfile.mkdtemp(prefix="venus-live-"))
    load0 = os.getloadavg()[0]
    results = []
    for r in range(max(1, args.rounds)):
        voice = VOICES[r % len(VOICES)]
        print(f"  round {r + 1}: Flite {voice}, {len(conversations)} conversations", flush=True)
        results += talk(work / f"round-{r}", conversations, voice, echo=args.echo,
                        video=not args.no_video, assistant_voice=args.assistant_voice)
    load = round((load0 + os.getloadavg()[0]) / 2, 2)
    if args.screenshots and (work / "round-0" / "conversation.png").exists():
        Path(args.screenshots).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / "round-0" / "conversation.png",
                        Path(args.screenshots) / "app-voice.png")
    return _report(args, results, load)


def talk(work: Path, conversations, voice: str, *, echo: float = 0.0, video: bool = True,
         assistant_voice: str = "auto", timeout_s: float = 600.0) -> list[dict]:
    """One browser run: every conversation in the Flite ``voice``, one result dict per
    conversation (the tests call this too); the app's log is ``work/server.log``."""
    work.mkdir(parents=True, exist_ok=True)
    wav, parts = _microphone_file(work / "microphone.wav", conversations, voice)
    drive = _drive(work, wav, conversations, parts, echo, video, assistant_voice)
    return asyncio.run(asyncio.wait_for(drive, timeout_s))


# -- the microphone file ------------------------------------------------------------------
def _microphone_file(path: Path, conversations, voice: str):
    from venus.eval.voices import family_synthesizer, spoken

    synth = family_synthesizer("flite")
    audio: list[np.ndarray] = []
    at = 0.0
    parts = []  # (conversation, part, voiced start, voiced end) in file seconds

    def say(text: str) -> tuple[float, float]:
        nonlocal at
        speech = synth.synthesize(spoken("flite", text), voice=voice)
        clip = _at_rate(speech.audio, speech.sample_rate)
        voiced = np.flatnonzero(np.abs(clip) > 0.02)
        start = at + (voiced[0] if len(voiced) else 0) / SAMPLE_RATE
        end = at + (voiced[-1] if len(voiced) else len(clip)) / SAMPLE_RATE
        audio.append(clip)
        at += len(clip) / SAMPLE_RATE
        return start, end

    def pause(seconds: float) -> None:
        nonlocal at
        audio.append(np.zeros(round(seconds * SAMPLE_RATE), np.float32))
        at += seconds

    for i, c in enumerate(conversations):
        pause(LEAD_S)
        q = say(c.question)
        parts.append((i, 0, *q))
        if c.second is not None:
            pause(max(0.0, q[1] + c.after_s - at))
            s = say(c.second)
            parts.append((i, 1, *s))
        pause(TAIL_S)
    pcm = (np.clip(np.concatenate(audio), -1, 1) * 32000).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())
    return path, parts


def _at_rate(audio: np.ndarray, rate: int) -> np.ndarray:
    from memory.audio import resample

    clip = resample(np.asarray(audio, np.float32), int(rate), SAMPLE_RATE)
    peak = float(np.abs(clip).max()) if len(clip) else 0.0
    return clip * (0.5 / peak) if peak > 0 else clip  # a normal speaking level


# -- the browser --------------------------------------------------------------------------
_SAMPLER = """() => {
  window.venusStates = [];
  const el = document.querySelector('#venus-agent-state');
  window.venusSampler = setInterval(() => window.venusStates.push(
    [performance.now(), el.dataset.state]), 50);
}"""


async def _drive(work: Path, wav: Path, conversations, parts, echo: float, video: bool,
                 assistant_voice: str) -> list[dict]:
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import async_playwright

    from demos.browser import ARGS, CHROMIUM, INGEST_MS

    with wave.open(str(wav)) as w:
        length = w.getnframes() / SAMPLE_RATE
    with _App(work, assistant_voice) as app:
        async with async_playwright() as p:
            browser = await p.chromium.launch(
                executable_path=str(CHROMIUM),
                args=ARGS + [f"--use-file-for-fake-audio-capture={wav}%noloop",
                             "--autoplay-policy=no-user-gesture-required"])
            context = await browser.new_context(permissions=["microphone", "camera"])
            page = await context.new_page()
            await page.goto(app.url, timeout=120_000)
            await page.wait_for_selector("#venus-agent-state[data-link]", timeout=120_000)
            await page.wait_for_function("window.venusVoice?.ws?.readyState === 1",
                                         timeout=60_000)
            if video:
                await page.click("#venus-sample")
                await page.wait_for_function(
                    "/Ready/.test(document.querySelector('#venus-status')?.innerText || '')",
                    timeout=INGEST_MS)
            await app.warm(page)
            if echo:
                await page.evaluate(f"window.venusEcho = {float(echo)}")
            await page.evaluate(_SAMPLER)
            await page.click("#venus-talk")
            try:
                await page.wait_for_selector("#venus-talk[data-on=true]", timeout=10_000)
            except PlaywrightTimeout:
                raise RuntimeError("the talk button did not start the microphone: " + str(
                    await page.get_attribute("#venus-talk", "title"))) from None
            await page.wait_for_timeout(round((length + 3.0) * 1000))
            trace = await page.evaluate(
                "({log: window.venusVoice.log, states: window.venusStates, "
                "frames: [window.venusVoice.framesIn, window.venusVoice.framesOut]})")
            lag = await page.evaluate("window.venusVoice.ctx ? (window.venusVoice.delay + "
                                      "(window.venusVoice.ctx.outputLatency || 0) + "
                                      "(window.venusVoice.ctx.baseLatency || 0)) : null")
            chat = await page.inner_text("#venus-chat")
            await page.screenshot(path=str(work / "page.png"), full_page=True)
            await _conversation_shot(page, work / "conversation.png")
            await browser.close()
    (work / "chat.txt").write_text(chat)
    changes = [s for i, (_, s) in enumerate(trace["states"])
               if i == 0 or trace["states"][i - 1][1] != s]
    (work / "states.txt").write_text(" ".join(changes))
    return _score(conversations, parts, trace, lag)


async def _conversation_shot(page, path: Path) -> None:
    """The chat, the talk button and the agent's state, as a person sees them."""
    boxes = [await page.locator(sel).bounding_box() for sel in
             ("#venus-chat", "#venus-voicebar")]
    boxes = [b for b in boxes if b]
    if not boxes:
        return
    x0, y0 = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    x1 = max(b["x"] + b["width"] for b in boxes)
    y1 = max(b["y"] + b["height"] for b in boxes)
    await page.screenshot(path=str(path), clip={"x": x0 - 8, "y": y0 - 8,
                                                "width": x1 - x0 + 16, "height": y1 - y0 + 16})


class _App:
    """``venus app`` in a child process on a free port."""

    def __init__(self, work: Path, voice: str = "auto") -> None:
        from demos.browser import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = work / "server.log"
        self.cmd = [sys.executable, "-m", "venus", "app", "--server-port", str(self.port),
                    "--workdir", str(work / "sessions"), "--samples",
                    str(Path(tempfile.gettempdir()) / "venus-live-samples"),
                    "--sample-minutes", "2", "--voice", voice]

    def __enter__(self) -> _App:  # noqa: PYI034 (private, never subclassed)
        from demos.browser import wait_serving

        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with self.log.open("w") as out:  # the child keeps its own copy of the handle
            self.proc = subprocess.Popen(self.cmd, env=env, stdout=out,
                                         stderr=subprocess.STDOUT)
        try:
            wait_serving(self.url, 180, self.proc)
        except RuntimeError as exc:
            raise RuntimeError(f"venus app: {exc}; see {self.log}") from None
        return self

    async def warm(self, page, timeout_s: float = 120.0) -> None:
        """Wait until the server says its models are loaded (its log's ``models ready``)."""
        deadline = time.monotonic() + timeout_s
        while "models ready" not in self.log.read_text():
            if time.monotonic() > deadline:
                raise RuntimeError(f"venus app did not load its models in {timeout_s:g} s; "
                                   f"see {self.log}")
            await page.wait_for_timeout(250)

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# -- scoring ------------------------------------------------------------------------------
def _score(conversations, parts, trace: dict, lag: float | None) -> list[dict]:
    """One result per conversation. Page times of every part come from the captured voice:
    the first voiced stretch the page heard is the first part's, and the file runs in
    real time from there."""
    log = trace["log"]
    voices = [e["t"] for e in log if e["state"] == "user-voice"]
    if not voices:
        raise RuntimeError("the page heard no voice from the fake microphone")
    shift = voices[0] / 1000 - parts[0][2]  # file seconds -> page seconds
    states = [(t / 1000, s) for t, s in trace["states"]]
    stopped = [e["t"] / 1000 for e in log if e["state"] == "op:stopped"]
    queued = [e["t"] / 1000 for e in log if e["state"] == "op:queued"]
    spans: dict[int, list[tuple[float, float]]] = {}
    for conv, _, start, end in parts:
        spans.setdefault(conv, []).append((start + shift, end + shift))
    out = []
    for n, c in enumerate(conversations):
        limit = spans[n + 1][0][0] if n + 1 in spans else float("inf")
        r = _one(spans[n], states, stopped, queued, limit)
        r.update(kind=c.kind, lag_s=lag, frames=trace["frames"])
        out.append(r)
    return out


def _enters_speaking(states, t0: float, t1: float) -> float | None:
    """The first time in [t0, t1) the page went from not speaking to speaking."""
    before = _state_at(states, t0)
    for t, s in states:
        if t0 <= t < t1:
            if s == "speaking" and before != "speaking":
                return t
            before = s
    return None


def _leaves_speaking(states, t0: float, t1: float) -> float | None:
    return next((t for t, s in states if t0 <= t < t1 and s != "speaking"), None)


def _state_at(states, t: float) -> str:
    before = [s for u, s in states if u <= t]
    return before[-1] if before else "listening"


def _one(spans, states, stopped, queued, limit: float) -> dict:
    (_, q1), second = spans[0], spans[1] if len(spans) > 1 else None
    reply = _enters_speaking(states, q1, limit)
    quiet_until = second[0] if second else limit  # nobody speaks over the reply before
    r = {"voice_to_voice_s": None if reply is None or (second and reply > second[0])
         else reply - q1, "answered": reply is not None,
         "false_stop": reply is not None and any(reply <= t < quiet_until for t in stopped)}
    if second is not None:
        s0, s1 = second
        r["into_reply_s"] = s0 - reply if reply is not None and reply < s0 else None
        r["speaking_at_second"] = _state_at(states, s0) == "speaking"
        left = _leaves_speaking(states, s0, s0 + 6.0) if r["speaking_at_second"] else None
        r["silence_s"] = None if left is None else left - s0
        r["stopped"] = any(s0 <= t < s0 + 6.0 for t in stopped)
        after = _enters_speaking(states, s1, limit)
        r["second_voice_to_voice_s"] = None if after is None else after - s1
        r["replied_to_second"] = any(s1 <= t < limit for t in queued)  # a new reply
        r["paused"] = not r["stopped"] and after is not None and after < s1 + 3.0
    return r


def _report(args, results: list[dict], load: float) -> BenchReport:
    from venus.bench.report import percentile

    def p(values, q):
        values = [v for v in values if v is not None]
        return round(percentile(values, q), 3) if values else None

    def share(rows, key):
        return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None

    kind = {k: [r for r in results if r["kind"] == k] for k in {r["kind"] for r in results}}
    v2v = [r["voice_to_voice_s"] for r in results] + \
        [r.get("second_voice_to_voice_s") for r in kind.get("followup", [])]
    barge = [r for r in kind.get("bargein", []) if r["speaking_at_second"]]
    bc = [r for r in kind.get("backchannel", []) if r["speaking_at_second"]]
    other = [r for r in kind.get("other", []) if r["speaking_at_second"]]
    follow = kind.get("followup", [])
    lags = [r["lag_s"] for r in results if r.get("lag_s") is not None]
    figures = {
        "voice_to_voice_s_p50": p(v2v, 50), "voice_to_voice_s_p95": p(v2v, 95),
        "bargein_silence_s_p50": p([r["silence_s"] for r in barge], 50),
        "bargein_silence_s_p95": p([r["silence_s"] for r in barge], 95),
        "answered": share(results, "answered"),
        "followups_answered": share(follow, "replied_to_second"),
        "continued_backchannel": round(1 - share(bc, "stopped"), 3) if bc else None,
        "continued_other": round(1 - share(other, "stopped"), 3) if other else None,
        "bargeins_in_reply": f"{len(barge)}/{len(kind.get('bargein', []))}",
        "backchannels_in_reply": f"{len(bc)}/{len(kind.get('backchannel', []))}",
        "others_in_reply": f"{len(other)}/{len(kind.get('other', []))}",
        "replied_to_backchannel": sum(r["replied_to_second"] for r in kind.get("backchannel", [])),
        "replied_to_other": sum(r["replied_to_second"] for r in kind.get("other", [])),
        "false_stops": sum(r["false_stop"] for r in results),
        "false_bargein_echo": sum(r["false_stop"] for r in results) if args.echo else None,
        "replies_checked_for_false_stops": sum(r["answered"] for r in results),
        "echo_gain": args.echo, "page_playout_lag_s": p(lags, 50), "load": load,
        "voices": "flite " + ",".join(VOICES[i % len(VOICES)] for i in range(args.rounds)),
        "video": not args.no_video,
    }
    rows = [[i + 1, r["kind"], _s(r["voice_to_voice_s"]), _s(r.get("into_reply_s")),
             _s(r.get("silence_s")), _outcome(r)] for i, r in enumerate(results)]
    summary = (f"Chromium, fake microphone, Flite voices (held out), load {load}: voice to "
               f"voice p50 {figures['voice_to_voice_s_p50']} s / p95 "
               f"{figures['voice_to_voice_s_p95']} s; barge-in silence p50 "
               f"{figures['bargein_silence_s_p50']} s ({figures['bargeins_in_reply']} landed "
               f"in a reply); answered {figures['answered']}, follow-ups "
               f"{figures['followups_answered']}, continued through backchannels "
               f"{figures['continued_backchannel']} and remarks to others "
               f"{figures['continued_other']} (replied to {figures['replied_to_backchannel']} "
               f"backchannels and {figures['replied_to_other']} remarks to others); "
               f"{figures['false_stops']} false stops in "
               f"{figures['replies_checked_for_false_stops']} replies (echo gain {args.echo})")
    header = ["#", "conversation", "voice to voice s", "second part into reply s",
              "silence after it s", "outcome"]
    return BenchReport("live", header, rows, summary, figures)


def _outcome(r: dict) -> str:
    if not r["answered"]:
        return "not answered"
    if r["false_stop"]:
        return "stopped with nobody speaking"
    if "stopped" not in r:
        return "answered"
    if r["kind"] == "followup":
        return "answered both" if r["replied_to_second"] else "follow-up not answered"
    if not r["speaking_at_second"]:
        return "second part outside the reply"
    if r["stopped"]:
        verb = "stopped"
    else:
        verb = "paused, then went on" if r["paused"] else "kept talking"
    if r["replied_to_second"]:
        verb += ", then replied to it"
        if r["second_voice_to_voice_s"] is not None:
            verb += f" ({r['second_voice_to_voice_s']:.2f} s)"
    return verb


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
