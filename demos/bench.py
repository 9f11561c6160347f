"""``venus bench app``: the real app, served by ``venus app``, driven by headless Chromium.

Beside the UI (nothing in the app imports it). Two phases against one server process:

* **idle**: one tab uploads the sample lecture, asks a question, and once the reply has
  been spoken sits idle; the figures are the requests and bytes that tab moved, and the
  CPU the server process used, over ``--idle-seconds`` (target: at most 5 requests and
  5 KB per 10 s, under 2% of a core);
* **load**: ``--tabs`` browser contexts at once each upload the lecture, wait for it to
  be watched and ask ``--questions`` questions; every tab must finish, and none may see
  another's memory (its key frames come from its own session folder, its chat holds its
  own questions only). Reported: time to first answer (from the upload), answer latency
  (from the question), ingest time (split into the wait for a free worker and the
  watching), the CPU of the server and of the headless browser (all its processes).

``--screenshots DIR`` saves the main states of the page (loading, an answer with its
chips and cited frames, a quiz and a summary, a refused upload, the camera) for the docs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from demos.browser import ARGS, CHROMIUM, INGEST_MS, free_port, wait_serving

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("the Gradio app in headless Chromium: idle traffic and server CPU of a loaded "
               "tab, then many tabs at once uploading the sample lecture and asking questions")

QUESTIONS = ("What is the pH scale?", "What does DNA carry?", "How do clouds form?",
             "What do producers make?", "Why do useful traits spread?")
_BOT = "#venus-chat [data-testid=bot]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tabs", type=int, default=8, help="browser contexts at once (8)")
    parser.add_argument("--minutes", type=float, default=3.0,
                        help="length of the sample lecture each tab uploads (3)")
    parser.add_argument("--questions", type=int, default=3, help="questions per tab (3)")
    parser.add_argument("--idle-seconds", type=float, default=10.0,
                        help="idle window measured in the first phase (10)")
    parser.add_argument("--workers", type=int, default=2, help="the app's --ingest-workers (2)")
    parser.add_argument("--work", default=None, help="working folder (default: a temp dir)")
    parser.add_argument("--screenshots", default=None, metavar="DIR",
                        help="also save screenshots of the page's main states here")
    parser.add_argument("--skip-load", action="store_true", help="only the idle phase")
    parser.add_argument("--patience", type=float, default=1200.0,
                        help="seconds a tab of the load phase waits for its video to be "
                             "watched, its wait in line included, before it counts as "
                             "not finished (1200)")


@dataclass
class TabResult:
    tab: int
    ingest_s: float = float("nan")
    queued_s: float = float("nan")  # upload to "Watching": the wait for a free worker
    first_answer_s: float = float("nan")
    answer_s: list[float] = field(default_factory=list)
    frame_dirs: set[str] = field(default_factory=set)
    chat: str = ""
    error: str = ""


def run(args: argparse.Namespace):
    from venus.bench.report import BenchReport, percentile

    work = Path(args.work or tempfile.mkdtemp(prefix="venus-bench-app-"))
    lecture = _lecture(args.minutes, work / "samples")
    browser_cpu = _BrowserCpu()
    with _Server(work, args) as server:
        idle = asyncio.run(_idle_phase(server, lecture, args))
        load = [] if args.skip_load else asyncio.run(_load_phase(server, lecture, args,
                                                                 browser_cpu))
        load_cpu = server.cpu_since_mark()
    finished = [r for r in load if not r.error and len(r.answer_s) == args.questions]
    isolated = _isolated(load)
    answers = [s for r in finished for s in r.answer_s]
    figures = {
        "idle_requests_per_10s": round(idle["requests"] * 10 / args.idle_seconds, 2),
        "idle_bytes_per_10s": round(idle["bytes"] * 10 / args.idle_seconds),
        "idle_server_cpu_pct": round(idle["cpu_pct"], 2),
        "idle_urls": idle["urls"],
        "tabs": len(load), "finished": len(finished), "isolated": isolated,
        "first_answer_s_p50": _r(percentile([r.first_answer_s for r in finished], 50)),
        "first_answer_s_p95": _r(percentile([r.first_answer_s for r in finished], 95)),
        "answer_s_p50": _r(percentile(answers, 50)), "answer_s_p95": _r(percentile(answers, 95)),
        "ingest_s_p50": _r(percentile([r.ingest_s for r in finished], 50)),
        "ingest_s_p95": _r(percentile([r.ingest_s for r in finished], 95)),
        "queued_s_p50": _r(percentile([r.queued_s for r in finished], 50)),
        "queued_s_p95": _r(percentile([r.queued_s for r in finished], 95)),
        "watch_s_p50": _r(percentile([r.ingest_s - r.queued_s for r in finished], 50)),
        "watch_s_p95": _r(percentile([r.ingest_s - r.queued_s for r in finished], 95)),
        "load_server_cpu_cores": round(load_cpu / 100, 2),
        "load_browser_cpu_cores": round(browser_cpu.cores(), 2),
        "load_seconds": round(browser_cpu.seconds, 1),
        "video_seconds": round(_duration(lecture), 1), "ingest_workers": args.workers,
        "errors": [f"tab {r.tab}: {r.error}" for r in load if r.error],
    }
    rows = [["idle: requests / 10 s", figures["idle_requests_per_10s"], "<= 5"],
            ["idle: bytes / 10 s", figures["idle_bytes_per_10s"], "<= 5000"],
            ["idle: server CPU, % of a core", figures["idle_server_cpu_pct"], "< 2"]]
    if load:
        rows += [[f"load: tabs finished of {len(load)}", len(finished), len(load)],
                 ["load: no tab saw another's memory", isolated, True],
                 ["load: first answer after upload, p50 / p95 s",
                  f"{figures['first_answer_s_p50']} / {figures['first_answer_s_p95']}", ""],
                 ["load: answer after question, p50 / p95 s",
                  f"{figures['answer_s_p50']} / {figures['answer_s_p95']}", ""],
                 ["load: ingest, p50 / p95 s",
                  f"{figures['ingest_s_p50']} / {figures['ingest_s_p95']}", ""],
                 ["load:   waiting for a worker, p50 / p95 s",
                  f"{figures['queued_s_p50']} / {figures['queued_s_p95']}", ""],
                 ["load:   watching, p50 / p95 s",
                  f"{figures['watch_s_p50']} / {figures['watch_s_p95']}", ""],
                 ["load: server CPU, cores", figures["load_server_cpu_cores"], ""],
                 ["load: browser CPU (all Chromium processes), cores",
                  figures["load_browser_cpu_cores"], ""],
                 ["load: phase length, s", figures["load_seconds"], ""]]
    summary = (f"idle {figures['idle_requests_per_10s']} requests and "
               f"{figures['idle_bytes_per_10s']} B per 10 s, server "
               f"{figures['idle_server_cpu_pct']}% of a core")
    if load:
        summary += (f"; {len(finished)}/{len(load)} tabs finished, isolated={isolated}, "
                    f"first answer p95 {figures['first_answer_s_p95']} s")
    return BenchReport("app", ["figure", "value", "target"], rows, summary, figures)


def _r(value: float) -> float:
    return round(value, 2)


def _lecture(minutes: float, directory: Path) -> Path:
    from memory.samples import make_lecture

    return Path(make_lecture(minutes, 0, directory / f"lecture-{minutes:g}min").video)


def _duration(path: Path) -> float:
    from memory.video import open_video

    with open_video(path) as source:
        return float(source.info.duration or 0.0)


def _isolated(results: list[TabResult]) -> bool:
    """Each tab's key frames come from one session folder nobody else's come from, and
    its chat holds no other tab's questions."""
    owners: dict[str, int] = {}
    for r in results:
        if len(r.frame_dirs) > 1:
            return False
        for d in r.frame_dirs:
            if owners.setdefault(d, r.tab) != r.tab:
                return False
        if any(f"Tab {other.tab}:" in r.chat for other in results if other.tab != r.tab):
            return False
    return True


class _Server:
    """``venus app`` in a child process, with its CPU time read from /proc."""

    def __init__(self, work: Path, args: argparse.Namespace) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.cmd = [sys.executable, "-m", "venus", "app", "--server-port", str(self.port),
                    "--workdir", str(work / "sessions"), "--samples", str(work / "samples"),
                    "--sample-minutes", f"{args.minutes:g}", "--ingest-workers",
                    str(args.workers), "--max-tabs", str(max(32, args.tabs + 4))]
        self.env = env
        self.log = work / "server.log"
        self._mark = 0.0

    def __enter__(self) -> _Server:  # noqa: PYI034 (a private class, never subclassed)
        self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=self.log.open("w"),
                                     stderr=subprocess.STDOUT)
        try:
            wait_serving(self.url, 180, self.proc)
        except RuntimeError as exc:
            raise RuntimeError(f"venus app: {exc}; see {self.log}") from None
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def mark(self) -> None:
        self._mark_cpu, self._mark = self.cpu_seconds(), time.monotonic()

    def cpu_since_mark(self) -> float:
        """Server CPU since `mark`, in % of one core."""
        if not self._mark:
            return 0.0
        return 100 * (self.cpu_seconds() - self._mark_cpu) / (time.monotonic() - self._mark)


async def _browser(p):
    return await p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)


async def _open(browser, url: str):
    context = await browser.new_context(viewport={"width": 1400, "height": 1500},
                                        permissions=["camera", "microphone"])
    page = await context.new_page()
    await page.goto(url, timeout=120_000)
    await _wait(page, "#venus-status", "Upload a video", 120_000)
    return context, page


async def _wait(page, selector: str, pattern: str, timeout: float = 60_000) -> None:
    await page.wait_for_function(
        "([sel, pat]) => new RegExp(pat).test(document.querySelector(sel)?.innerText || '')",
        arg=[selector, pattern], timeout=timeout)


async def _ask(page, text: str) -> float:
    """Ask, then wait for the reply; seconds from the question to the reply shown."""
    replies = await page.locator(_BOT).count()
    t0 = time.monotonic()
    await page.fill("#venus-message textarea", text)
    await page.press("#venus-message textarea", "Enter")
    await page.wait_for_function(
        "n => document.querySelectorAll('#venus-chat [data-testid=bot]').length > n",
        arg=replies, timeout=120_000)
    return time.monotonic() - t0


async def _idle_phase(server: _Server, lecture: Path, args) -> dict:
    from playwright.async_api import async_playwright

    from demos.browser import Traffic

    shots = Path(args.screenshots) if args.screenshots else None
    async with async_playwright() as p:
        browser = await _browser(p)
        context, page = await _open(browser, server.url)
        traffic = _AsyncTraffic()
        await traffic.attach(context, page)
        await page.locator("#venus-upload input[type=file]").set_input_files(str(lecture))
        await _wait(page, "#venus-status", r"Watching .*: [1-9]\d?%", 120_000)
        await _shot(page, shots, "app-loading.png")
        await _wait(page, "#venus-status", "Ready", INGEST_MS)
        await _ask(page, QUESTIONS[0])
        await page.wait_for_selector("#venus-cited img", timeout=60_000)
        await _shot(page, shots, "app-answer.png")
        if shots:
            await _work_states(page, shots)
        await page.wait_for_function(_QUIET, timeout=180_000)
        server.mark()
        start = time.monotonic()
        await page.wait_for_timeout(args.idle_seconds * 1000)
        window = Traffic(traffic.events).window(start, time.monotonic())
        window["cpu_pct"] = server.cpu_since_mark()
        if shots:
            await _other_states(browser, server, shots)
        await context.close()
        await browser.close()
    server.mark()
    return window


_QUIET = """() => {
  const last = document.querySelector('#venus-timeline .venus-strip')?.lastElementChild;
  const voice = document.querySelector('#venus-voice audio');
  const state = document.querySelector('#venus-agent-state')?.dataset.state;
  const work = document.querySelector('#venus-work')?.innerText || '';
  return last && last.classList.contains('venus-run') && (!voice || voice.paused)
    && state !== 'speaking'
    && !/Waiting|Working|Telling/.test(work);
}"""


async def _work_states(page, shots: Path) -> None:
    await _ask(page, "Quiz me on the lecture")
    await page.wait_for_selector("#venus-chat details", timeout=120_000)
    await page.locator("#venus-chat .venus-result summary").first.click()
    await _ask(page, "Please summarize the whole video")
    await page.wait_for_function("document.querySelectorAll('#venus-work tr[data-state="
                                 "delivered]').length >= 2", timeout=180_000)
    quiz = page.locator("#venus-chat .venus-result", has_text="Quiz on").last
    await quiz.locator("summary").first.click()  # one answer shown, the others on demand
    await quiz.scroll_into_view_if_needed()
    await _shot(page, shots, "app-quiz-summary.png")


async def _other_states(browser, server: _Server, shots: Path) -> None:
    from PIL import Image

    context, page = await _open(browser, server.url)
    picture = shots.parent / ".holiday.mp4"
    Image.new("RGB", (640, 360), "orange").save(picture, format="PNG")
    try:
        await page.locator("#venus-upload input[type=file]").set_input_files(str(picture))
        await _wait(page, "#venus-status", "Upload refused")
        await _shot(page, shots, "app-refused.png", full=False)
    finally:
        picture.unlink(missing_ok=True)
    await context.close()
    context, page = await _open(browser, server.url)  # the camera in a tab of its own
    await page.get_by_role("tab", name="Live camera").click()
    await page.get_by_text("Click to Access Webcam").click()
    await page.locator("#venus-camera button", has_text="Record").click()
    await _wait(page, "#venus-status", "Camera live", 60_000)
    await page.wait_for_selector("#venus-frames img", timeout=60_000)
    await _ask(page, "What can you see right now?")
    await _shot(page, shots, "app-camera.png")
    await context.close()


async def _shot(page, shots: Path | None, name: str, full: bool = True) -> None:
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(shots / name), full_page=full)


class _AsyncTraffic:
    def __init__(self) -> None:
        self.events: list = []

    async def attach(self, context, page) -> None:
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.enable")
        for name in ("Network.requestWillBeSent", "Network.dataReceived"):
            cdp.on(name, lambda params, name=name: self.events.append(
                (time.monotonic(), name, params)))
        self._cdp = cdp


async def _load_phase(server: _Server, lecture: Path, args, cpu: _BrowserCpu
                      ) -> list[TabResult]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await _browser(p)
        server.mark()
        sampler = asyncio.create_task(cpu.sample())
        results = await asyncio.gather(*(_tab(browser, server, lecture, i + 1, args)
                                         for i in range(args.tabs)))
        sampler.cancel()
        cpu.read()
        await browser.close()
    return list(results)


class _BrowserCpu:
    """CPU of every Chromium process over the load phase, read from /proc every 2 s
    (a renderer that exits between two reads loses at most its last 2 s)."""

    def __init__(self) -> None:
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.start = self.end = 0.0
        self.seconds = 0.0

    async def sample(self) -> None:
        self.start = time.monotonic()
        while True:
            self.read()
            await asyncio.sleep(2.0)

    def read(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        baseline = not self.last  # the first read: what ran before the phase is not counted
        parents, used = {}, {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            pid, fields = int(stat.parent.name), text.rsplit(")", 1)[1].split()
            parents[pid] = int(fields[1])
            if "(chrom" in text.split(")", 1)[0]:
                used[pid] = (int(fields[11]) + int(fields[12])) / tick
        for pid, seconds in used.items():
            if _descends(pid, os.getpid(), parents):  # our browser, nobody else's
                self.first.setdefault(pid, seconds if baseline else 0.0)
                self.last[pid] = seconds
        self.end = time.monotonic()
        self.seconds = self.end - self.start if self.start else 0.0

    def cores(self) -> float:
        used = sum(self.last[p] - self.first[p] for p in self.last)
        return used / self.seconds if self.seconds > 0 else 0.0


async def _tab(browser, server: _Server, lecture: Path, tab: int, args) -> TabResult:
    result = TabResult(tab)
    context = None
    try:
        context, page = await _open(browser, server.url)
        t0 = time.monotonic()
        await page.locator("#venus-upload input[type=file]").set_input_files(str(lecture))
        await _wait(page, "#venus-status", "Watching|Ready", args.patience * 1000)
        result.queued_s = time.monotonic() - t0
        await _wait(page, "#venus-status", "Ready", args.patience * 1000)
        result.ingest_s = time.monotonic() - t0
        for q in range(args.questions):
            question = f"Tab {tab}: {QUESTIONS[(tab + q) % len(QUESTIONS)]}"
            result.answer_s.append(await _ask(page, question))
            if q == 0:
                result.first_answer_s = time.monotonic() - t0
        srcs = await page.eval_on_selector_all("#venus-frames img, #venus-cited img",
                                               "els => els.map(e => e.getAttribute('src'))")
        result.frame_dirs = {_session_dir(s) for s in srcs if s}
        result.chat = await page.inner_text("#venus-chat")
    except Exception as exc:  # noqa: BLE001 (a tab that fails is a figure, not a crash)
        result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        if context is not None:
            await context.close()
    return result


def _descends(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    for _ in range(64):
        pid = parents.get(pid, 0)
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def _session_dir(src: str) -> str:
    from urllib.parse import unquote

    path = unquote(src.split("file=", 1)[-1])
    m = re.search(r"(.*/venus-app-[^/]+)/", path)
    return m.group(1) if m else path
