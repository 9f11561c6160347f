"""The app's event handlers: thin functions from browser events to `AppSession` calls.

Between `demos.state` (the logic) and `demos.ui` (the layout). Each handler finds the
caller's own `AppSession` by the browser session id (``request.session_hash``), so two
tabs never share a memory, a timeline or a harness channel. A refused upload is shown as
a warning toast and in the status line; nothing a user does can raise a traceback into
the page. Handlers take plain values, so the tests call them directly.
"""

from __future__ import annotations

import logging
import re
import wave
from pathlib import Path
from typing import Any

import gradio as gr
import numpy as np

from demos.state import AppSession, SessionRegistry
from demos.views import chat_messages, clock, moments_html, timeline_html, work_html, work_rows
from memory.errors import MemoryToolkitError
from venus.errors import VenusError
from venus.events import SpeechPlayed

__all__ = ["Handlers", "Refresh"]

logger = logging.getLogger(__name__)

Refresh = tuple[Any, ...]


class Handlers:
    """Bound to one `SessionRegistry`; every method takes the caller's ``request`` last."""

    def __init__(self, registry: SessionRegistry, *, tts: bool = True) -> None:
        self.registry = registry
        self.tts = tts
        self._spoken: dict[str, str] = {}  # session -> last utterance turned into audio
        self._choices: dict[str, list[str]] = {}  # session -> work items in the dropdown
        self._gallery_at: dict[str, tuple[int, int]] = {}  # session -> memory shown

    def app(self, request: gr.Request) -> AppSession:
        return self.registry.get(_sid(request))

    # -- lifecycle -------------------------------------------------------------------------
    def opened(self, request: gr.Request) -> str:
        self.app(request)
        return "Upload a video, use the sample lecture, or start the camera."

    def closed(self, request: gr.Request) -> None:
        self._spoken.pop(_sid(request), None)
        self._choices.pop(_sid(request), None)
        self._gallery_at.pop(_sid(request), None)
        self.registry.close(_sid(request))

    # -- input -----------------------------------------------------------------------------
    def upload(self, path: str | None, request: gr.Request,
               progress: gr.Progress = gr.Progress()  # noqa: B008 (Gradio injects it)
               ) -> tuple[Any, str, list]:
        return self._load(request, lambda app, cb: app.load_video(path, cb), progress)

    def sample(self, request: gr.Request,
               progress: gr.Progress = gr.Progress()  # noqa: B008 (Gradio injects it)
               ) -> tuple[Any, str, list]:
        return self._load(request, lambda app, cb: app.load_sample(cb), progress)

    def _load(self, request: gr.Request, load, progress) -> tuple[Any, str, list]:
        app = self.app(request)
        try:
            stats = load(app, lambda fraction, text: progress(fraction, desc=text))
        except (VenusError, MemoryToolkitError) as exc:
            message = f"Upload refused: {_hide_dirs(str(exc))}"
            gr.Warning(message)
            return gr.skip(), f"⚠️ {message}", gr.skip()
        status = (f"Ready: watched {clock(stats['duration'])} of video "
                  f"({stats.get('keyframes', 0)} key frames, {stats.get('segments', 0)} "
                  f"segments). Ask about it below.")
        return str(app.video_path), status, self.gallery(request)

    def frame(self, image: np.ndarray | None, request: gr.Request) -> None:
        if image is not None:
            self.app(request).push_frame(image)

    def audio(self, chunk: tuple[int, np.ndarray] | None, request: gr.Request) -> None:
        if chunk is not None and len(chunk[1]):
            self.app(request).push_audio(int(chunk[0]), chunk[1])

    # -- conversation ----------------------------------------------------------------------
    def send(self, text: str, request: gr.Request) -> str:
        if text and text.strip():
            self.app(request).ask(text)
        return ""

    def refresh(self, request: gr.Request) -> Refresh:
        """Chat, timeline strip, work panel, item choices, latest cited answer, reply audio,
        and the key-frame gallery when the memory changed."""
        app = self.app(request)
        entries = app.entries()
        now = app.now()
        rows = work_rows(entries)
        answer = app.answers[-1] if app.answers else None
        cited = (moments_html(answer.citations, f"“{answer.question}” — cited moments:")
                 if answer else moments_html([], "Answers cite moments here."))
        return (chat_messages(entries, now, app.options.words_per_second),
                timeline_html(entries), work_html(rows),
                self._item_choices(app.session_id, [r.item_id for r in rows]), cited,
                self._reply_audio(app, entries), self._live_gallery(app, request))

    def _live_gallery(self, app: AppSession, request: gr.Request) -> Any:
        # The camera's chunks reach the memory as it commits them: show new key frames.
        key = (id(app.memory), app.memory.version)
        if self._gallery_at.get(app.session_id, key) == key:
            self._gallery_at[app.session_id] = key
            return gr.skip()
        self._gallery_at[app.session_id] = key
        return self.gallery(request)

    def _item_choices(self, sid: str, choices: list[str]) -> Any:
        # Only when the items change: re-sending them would close an open dropdown.
        if self._choices.get(sid) == choices:
            return gr.skip()
        self._choices[sid] = choices
        return gr.update(choices=choices, value=choices[0] if choices else None)

    def _reply_audio(self, app: AppSession, entries) -> Any:
        if not self.tts:
            return gr.skip()
        playing = next((e.event for e in reversed(entries)
                        if isinstance(e.event, SpeechPlayed)), None)
        if playing is None or self._spoken.get(app.session_id) == playing.utterance_id:
            return gr.skip()
        self._spoken[app.session_id] = playing.utterance_id
        text = next((e.event.text for e in entries if getattr(e.event, "utterance_id", None)
                     == playing.utterance_id and hasattr(e.event, "text")), "")
        return _synthesize(text, app.directory / f"{playing.utterance_id}.wav",
                           app.options.words_per_second)

    # -- background work -------------------------------------------------------------------
    def cancel(self, item_id: str | None, request: gr.Request) -> None:
        if item_id:
            self.app(request).cancel(item_id)

    def retry(self, item_id: str | None, request: gr.Request) -> None:
        if item_id:
            self.app(request).retry(item_id)

    # -- memory browser --------------------------------------------------------------------
    def gallery(self, request: gr.Request) -> list[tuple[str, str]]:
        return [(m.keyframe, clock(m.start)) for m in self.app(request).keyframes()]

    def search(self, query: str, request: gr.Request) -> str:
        if not query or not query.strip():
            return moments_html([], "Type words to search the video memory.")
        found = self.app(request).search(query)
        return moments_html(found, f"{len(found)} moment(s) for “{query.strip()}”:")

    def seek_time(self, request: gr.Request, evt: gr.SelectData) -> float:
        """The start time of the gallery key frame the user clicked."""
        frames = self.app(request).keyframes()
        index = evt.index if isinstance(evt.index, int) else evt.index[0]
        return frames[index].start if 0 <= index < len(frames) else 0.0


def _synthesize(text: str, path: Path, words_per_second: float) -> str | None:
    """The reply as a 16 kHz WAV from the embedded eSpeak voice (None if it has no words)."""
    from memory.models.tts import EspeakSynthesizer

    speech = EspeakSynthesizer(rate=int(words_per_second * 60)).synthesize(text)
    if not len(speech.audio):
        return None
    pcm = (np.clip(speech.audio, -1, 1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(speech.sample_rate)
        out.writeframes(pcm.tobytes())
    return str(path)


def _hide_dirs(message: str) -> str:
    """Show file names only: the server's upload folders are nobody's business."""
    return re.sub(r"(?:/[^\s/]+)+/([^\s/]+)", r"\1", message)


def _sid(request: gr.Request | None) -> str:
    sid = getattr(request, "session_hash", None)
    if not sid:
        raise gr.Error("this browser session has no id; reload the page")
    return str(sid)
