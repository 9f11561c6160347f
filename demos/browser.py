"""Driving the app in a headless browser: the browser tests and ``venus bench app``.

Beside the UI, not under it (nothing in the app imports it). Debian Chromium through
Playwright with no browser download (`CHROMIUM`, `ARGS`), page actions by the elements'
ids, and `Traffic`, a recorder over the Chrome DevTools protocol that counts the
requests a page starts and the bytes it moves in a time window. Playwright is imported
by the caller (the ``dev`` extra).
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        # a synthetic camera and microphone, granted without a prompt
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
INGEST_MS = 300_000

__all__ = ["ARGS", "CHROMIUM", "INGEST_MS", "Traffic", "ask", "free_port", "last_reply",
           "open_page", "upload", "wait_serving", "wait_text"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_serving(url: str, timeout: float = 180.0, process=None) -> None:
    """Return once ``url`` answers; raise if ``process`` exits or ``timeout`` passes."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # it answers (a login page may say 401)
        except OSError:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server exited with code {process.returncode}") from None
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {timeout:g} s")


def open_page(browser, url: str, *, wait: str = "Upload a video"):
    context = browser.new_context(viewport={"width": 1400, "height": 1500},
                                  permissions=["camera", "microphone"])
    page = context.new_page()
    page.goto(url)
    if wait:
        wait_text(page, "#venus-status", wait)
    return context, page


def wait_text(page, selector: str, pattern: str, timeout: float = 60_000) -> str:
    page.wait_for_function(
        "([sel, pat]) => new RegExp(pat).test(document.querySelector(sel)?.innerText || '')",
        arg=[selector, pattern], timeout=timeout)
    return page.inner_text(selector)


def upload(page, path: Path) -> None:
    page.locator("#venus-upload input[type=file]").set_input_files(str(path))


def ask(page, text: str) -> None:
    page.fill("#venus-message textarea", text)
    page.press("#venus-message textarea", "Enter")


def last_reply(page) -> str:
    return page.locator("#venus-chat [data-testid=bot]").last.inner_text()


@dataclass
class Traffic:
    """Every request the page starts and every byte it receives or sends, with times."""

    events: list[tuple[float, str, dict]] = field(default_factory=list)

    @classmethod
    def record(cls, context, page) -> Traffic:
        traffic = cls()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        for name in ("Network.requestWillBeSent", "Network.dataReceived"):
            cdp.on(name, lambda params, name=name: traffic.events.append(
                (time.monotonic(), name, params)))
        traffic._cdp = cdp
        return traffic

    def window(self, start: float, end: float) -> dict:
        """Requests started and bytes moved (bodies received + request bodies sent)."""
        inside = [e for e in self.events if start <= e[0] < end]
        requests = [e[2] for e in inside if e[1] == "Network.requestWillBeSent"]
        received = sum(e[2].get("dataLength", 0) for e in inside
                       if e[1] == "Network.dataReceived")
        sent = sum(len(r["request"].get("postData") or "") for r in requests)
        urls = {e[2]["requestId"]: e[2]["request"]["url"].split("?")[0] for e in self.events
                if e[1] == "Network.requestWillBeSent"}
        by_url: dict[str, int] = {}
        for e in inside:
            if e[1] == "Network.dataReceived":
                url = urls.get(e[2].get("requestId"), "?")
                by_url[url] = by_url.get(url, 0) + e[2].get("dataLength", 0)
        return {"requests": len(requests), "bytes": received + sent,
                "urls": [r["request"]["url"].split("?")[0] for r in requests],
                "bytes_by_url": by_url}
