"""The app's event handlers: thin functions from browser events to `AppSession` calls.

Between `demos.state` / `demos.page` (the logic) and `demos.ui` (the layout). Each
handler finds the caller's own `AppSession` by the browser session id
(``request.session_hash``), so two tabs never share a memory, a timeline or a harness
channel. `Handlers.live` is the one long-running stream per tab that pushes the page's
outputs when they change (`demos.page.PageFeed`): an idle tab gets no requests and no
bytes beyond Gradio's heartbeat. A refused upload is a warning toast and the banner;
nothing a user does raises a traceback into the page. Handlers take plain values, so
the tests call them directly.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
import gradio as gr
import numpy as np

from demos.errors import SessionLimitError
from demos.labels import Status
from demos.page import OUTPUTS, SKIP, PageFeed
from demos.registry import SessionRegistry
from demos.state import AppSession
from demos.views import banner_html, moments_html
from demos.voice import synthesize
from memory.errors import MemoryToolkitError
from venus.errors import VenusError

__all__ = ["Handlers"]

logger = logging.getLogger(__name__)


class Handlers:
    """Bound to one `SessionRegistry`; every method takes the caller's ``request`` last.
    A tab's stream renders when its session announces a change (`demos.changes`), at
    most every ``poll_s`` seconds (a burst of changes is sent once); while the banner
    moves on with time (an ETA, a camera frame's age) every ``tick_s`` seconds; and
    otherwise every ``idle_s`` seconds as a safety net (nothing is sent unless something
    changed)."""

    def __init__(self, registry: SessionRegistry, *, tts: bool = True,
                 poll_s: float = 0.25, tick_s: float = 1.0, idle_s: float = 10.0) -> None:
        self.registry = registry
        self.tts = tts
        self.poll_s = poll_s
        self.tick_s = tick_s
        self.idle_s = idle_s

    def app(self, request: gr.Request) -> AppSession:
        try:
            return self.registry.get(_sid(request))
        except SessionLimitError as exc:
            raise gr.Error(str(exc)) from None

    # -- lifecycle -------------------------------------------------------------------------
    def closed(self, request: gr.Request) -> None:
        self.registry.close(_sid(request))

    async def live(self, request: gr.Request) -> AsyncIterator[tuple]:
        """The page's live outputs (see `demos.page.OUTPUTS`), pushed as they change,
        until the tab closes."""
        try:
            app = self.registry.get(_sid(request))
        except SessionLimitError as exc:
            yield (banner_html(Status("full", str(exc))),) + (gr.skip(),) * (len(OUTPUTS) - 1)
            return
        feed = PageFeed(app, self._voice(app) if self.tts else None)
        failing = False
        while not app.closed:
            seen = app.changes.count  # a change from here on wakes the wait below
            try:
                values = await anyio.to_thread.run_sync(feed.next)
                failing = False
            except Exception:  # our bug: say so once, keep the page alive
                if not failing:
                    logger.exception("updating the page of %s failed", app.session_id)
                failing, values = True, None
            if values is not None:
                yield tuple(gr.skip() if v is SKIP else v for v in values)
            await asyncio.sleep(self.poll_s)
            await app.changes.wait(seen, self.tick_s if feed.ticking else self.idle_s)

    # -- input -----------------------------------------------------------------------------
    def upload(self, path: str | None, request: gr.Request) -> None:
        self._load(request, lambda app: app.load_video(path))

    def sample(self, request: gr.Request) -> None:
        self._load(request, lambda app: app.load_sample())

    def _load(self, request: gr.Request, load) -> None:
        app = self.app(request)
        try:
            load(app)
        except (VenusError, MemoryToolkitError) as exc:
            message = f"Upload refused: {_hide_dirs(str(exc))}"
            app.refuse(message)
            gr.Warning(message)

    def frame(self, image: np.ndarray | None, request: gr.Request) -> None:
        if image is not None:
            self.app(request).push_frame(image)

    # -- conversation ----------------------------------------------------------------------
    def send(self, text: str, request: gr.Request) -> str:
        if text and text.strip():
            self.app(request).ask(text)
        return ""

    def clear_chat(self, request: gr.Request) -> None:
        self.app(request).clear_conversation()

    def forget(self, request: gr.Request) -> tuple[Any, Any]:
        """Confirmed: drop the video and its memory; hides the confirmation again and
        empties the search results (they were of the memory just forgotten)."""
        self.app(request).forget()
        return gr.update(visible=False), gr.update(value=None)

    # -- background work -------------------------------------------------------------------
    def work_action(self, request: gr.Request, evt: gr.EventData) -> None:
        """A Cancel or Retry button of a work-panel row (``{action, item}``)."""
        data = getattr(evt, "_data", None) or {}
        item, action = str(data.get("item") or ""), data.get("action")
        if not item:
            return
        app = self.app(request)
        if action == "cancel":
            app.cancel(item)
        elif action == "retry":
            app.retry(item)

    # -- memory browser --------------------------------------------------------------------
    def search(self, query: str, request: gr.Request) -> str:
        if not query or not query.strip():
            return moments_html([], "Type words to search the video memory.")
        found = self.app(request).search(query)
        return moments_html(found, f"{len(found)} moment{'s' if len(found) != 1 else ''} "
                            f"for “{query.strip()}” · click one to play from there")

    def _voice(self, app: AppSession):
        return lambda text, path: synthesize(text, path, app.options.words_per_second,
                                             app.options.voice)


def _hide_dirs(message: str) -> str:
    """Show file names only: the server's upload folders are nobody's business."""
    return re.sub(r"(?:/[^\s/]+)+/([^\s/]+)", r"\1", message)


def _sid(request: gr.Request | None) -> str:
    sid = getattr(request, "session_hash", None)
    if not sid:
        raise gr.Error("this browser session has no id; reload the page")
    return str(sid)
