"""End to end: the real Gradio app on 127.0.0.1 with the embedded frontend, driven by
headless Debian Chromium through Playwright (no browser download). Screenshots go to
the test's tmp directory."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        # a synthetic camera and microphone, granted without a prompt
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
INGEST_MS = 180_000

pytestmark = [
    pytest.mark.slow,
    # gradio.utils.safe_get_lock/safe_get_stop_event make a new event loop for each lock
    # when no loop runs (building Blocks outside a loop) and never close the one they
    # replace; its self-pipe is a family=1 socket. Gradio's leak, not ours.
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings(r"ignore:unclosed <socket\.socket fd=\d+, family=1:ResourceWarning"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed at "
                       "/usr/bin/chromium (scripts/setup.sh installs it)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[dict]:
    pytest.importorskip("gradio")
    from demos.state import AppOptions, SessionRegistry
    from demos.ui import launch
    from memory.samples import make_lecture

    root = tmp_path_factory.mktemp("app")
    samples = root / "samples"
    lecture = Path(make_lecture(0.5, 0, samples / "lecture-0.5min").video)  # what the button uses
    options = AppOptions(root=root / "sessions", sample_minutes=0.5, samples_dir=samples,
                         words_per_second=6.0, max_upload_mb=50)
    registry = SessionRegistry(options)  # the embedded frontend, as `venus app` runs it
    port = _free_port()
    demo = launch(registry, server_port=port, prevent_thread_lock=True)
    try:
        yield {"url": f"http://127.0.0.1:{port}/", "lecture": lecture, "registry": registry,
               "root": root}
    finally:
        demo.close()
        registry.close_all()
        _close_gradio_loop()


def _close_gradio_loop() -> None:
    """Close the last loop gradio set as this thread's current one (see pytestmark)."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loop = asyncio.get_event_loop_policy().get_event_loop()
    if not loop.is_running():
        loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def _page(browser, url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1800},
                                  permissions=["camera", "microphone"])
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("document.querySelector('#venus-status')?.innerText"
                           ".includes('Upload a video')")
    return context, page


def _wait_text(page, selector: str, pattern: str, timeout: float = 60_000) -> str:
    page.wait_for_function(
        "([sel, pat]) => new RegExp(pat).test(document.querySelector(sel)?.innerText || '')",
        arg=[selector, pattern], timeout=timeout)
    return page.inner_text(selector)


def _ask(page, text: str) -> None:
    page.fill("#venus-message textarea", text)
    page.press("#venus-message textarea", "Enter")


def test_upload_ask_summarize_and_seek(server, browser, tmp_path):
    context, page = _page(browser, server["url"])
    page.locator("#venus-upload input[type=file]").set_input_files(str(server["lecture"]))
    # the progress bar shows while the file is watched
    page.wait_for_selector(".progress-text, .eta-bar, .progress-level", timeout=60_000)
    status = _wait_text(page, "#venus-status", "Ready: watched 0:3", INGEST_MS)
    assert "key frames" in status
    assert page.locator("#venus-gallery img").count() >= 1

    _ask(page, "What is the pH scale?")
    cited = _wait_text(page, "#venus-cited", r"\d:\d\d–\d:\d\d")
    assert "pH" in cited
    chat = _wait_text(page, "#venus-chat", r"At \d:\d\d")
    assert "What is the pH scale?" in chat

    _ask(page, "Please summarize the whole video")
    page.wait_for_selector("#venus-work tr[data-state=delivered]", timeout=120_000)
    row = page.inner_text("#venus-work tr[data-state=delivered]")
    assert "summarize_range" in row and "Delivered" in row and "From 0:00" in row
    assert "interruption" in page.inner_text("#venus-timeline") or \
        page.locator("#venus-timeline .venus-cell").count() >= 3

    # a cited moment seeks the video player
    moment = page.locator("#venus-cited [data-seek]").last
    target = float(moment.get_attribute("data-seek"))
    page.wait_for_function("document.querySelector('#venus-player video')?.readyState >= 1")
    moment.click()
    page.wait_for_function("t => Math.abs(document.querySelector('#venus-player video')"
                           ".currentTime - t) < 0.6", arg=target)
    page.screenshot(path=str(tmp_path / "app_after_summary.png"), full_page=True)
    context.close()


def test_two_tabs_have_separate_memories_and_a_bad_upload_is_refused(server, browser, tmp_path):
    ctx_a, a = _page(browser, server["url"])
    ctx_b, b = _page(browser, server["url"])
    a.click("#venus-sample")  # A watches the sample lecture ...
    bad = tmp_path / "holiday.mp4"
    bad.write_text("this is a text file, not a video\n" * 200)
    b.locator("#venus-upload input[type=file]").set_input_files(str(bad))  # ... B uploads junk
    status = _wait_text(b, "#venus-status", "Upload refused")
    assert "holiday.mp4" in status and "/tmp" not in status  # no server paths shown
    assert re.search(r"holiday\.mp4", b.inner_text("body"))  # also in the toast
    b.screenshot(path=str(tmp_path / "app_bad_upload.png"), full_page=True)

    _wait_text(a, "#venus-status", "Ready: watched", INGEST_MS)
    a.fill("#venus-query textarea", "pH scale")
    a.click("#venus-search")
    assert "pH" in _wait_text(a, "#venus-results", r"[1-9] moment")
    b.fill("#venus-query textarea", "pH scale")
    b.click("#venus-search")
    _wait_text(b, "#venus-results", r"0 moment")
    assert b.locator("#venus-gallery img").count() == 0
    assert a.locator("#venus-gallery img").count() >= 1

    registry = server["registry"]
    sessions = list(registry._sessions.values())
    dirs = {s.directory for s in sessions}
    assert len(dirs) == len(sessions) >= 2
    ctx_a.close()
    ctx_b.close()


def test_cancel_from_the_work_panel_and_stream_the_live_camera(server, browser, tmp_path):
    context, page = _page(browser, server["url"])
    _ask(page, "set a timer for 5 minutes")
    page.wait_for_selector("#venus-work tr[data-state=running]", timeout=60_000)
    page.wait_for_function("document.querySelector('#venus-item input')?.value.endsWith('/w1')")
    page.click("#venus-cancel")  # the newest item is selected
    page.wait_for_selector("#venus-work tr[data-state=cancelled]", timeout=60_000)

    page.get_by_role("tab", name="Live camera").click()
    page.get_by_text("Click to Access Webcam").click()
    page.locator("#venus-camera button", has_text="Record").click()
    registry = server["registry"]

    def camera_chunks() -> int:
        return max((app.memory.stats()["pending_chunks"] + app.memory.version
                    for app in list(registry._sessions.values())), default=0)

    page.wait_for_function("document.querySelectorAll('#venus-timeline .venus-cell')"
                           ".length >= 8", timeout=60_000)
    assert camera_chunks() >= 2  # webcam seconds reached this tab's video memory
    page.screenshot(path=str(tmp_path / "app_live_camera.png"), full_page=True)
    context.close()
