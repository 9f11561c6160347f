"""`PageFeed`: what one tab's page shows, sent only when it changes (no Gradio).

Between `demos.state` and the handlers. The page's live outputs (status banner, chat,
cited key frames, work panel, conversation strip, memory key frames, the reply's voice
and the player) are pushed by one long-running stream per tab; `PageFeed.next` is its
body: it reads the session's cheap change markers (timeline length, memory version,
status line) and renders only the outputs whose inputs changed, returning `SKIP` for
the rest and None when nothing changed at all. An idle tab therefore costs no rendering
and no traffic; thumbnails are file URLs, never inlined.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from demos.chat import chat_view
from demos.results import Cited
from demos.views import ConversationStrip, banner_html, frames_html, voice_bar_html
from demos.work import work_html, work_rows
from venus.events import (
    PlaybackAcknowledged,
    ResultReady,
    SpeechPlayed,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    WorkItemCreated,
    WorkItemStateChanged,
)

__all__ = ["OUTPUTS", "SKIP", "TICKING", "PageFeed"]

TICKING = ("queued", "loading", "camera", "behind")
"""Banner states whose text moves on with time (a place in line, an ETA, the age of the
camera's last frame): the page stream renders them every `PageFeed.tick_s` seconds."""

OUTPUTS = ("banner", "chat", "cited", "work", "strip", "frames", "voice", "player", "talk")
SKIP: Any = type("Skip", (), {"__repr__": lambda self: "SKIP"})()
"""Marks an output that did not change (the handlers send ``gr.skip()`` for it)."""

_CHAT = (UserWordsTranscribed, SpeechQueued, SpeechStopped, ResultReady)
_WORK = (WorkItemCreated, WorkItemStateChanged, ResultReady)
_VOICE = (SpeechPlayed, SpeechStopped, PlaybackAcknowledged)

Voice = Callable[[str, Path], "str | None"]
"""``voice(text, wav_path)`` -> the path of the reply's audio (None: no audio)."""


class PageFeed:
    """One tab's outputs and what was last sent for each."""

    def __init__(self, app, voice: Voice | None = None) -> None:
        self.app = app
        self.voice = voice
        self._sent: dict[str, Any] = {}
        self._runner = None  # the conversation the incremental state below belongs to
        self._read = 0
        self._strip = ConversationStrip()
        self._chat_key: tuple = ()
        self._playing: str | None = None
        self.ticking = False  # the banner last rendered moves on with time (see TICKING)

    def next(self) -> list | None:
        """Values for the outputs that changed since the last call (`SKIP` for the others),
        or None when nothing changed."""
        app = self.app
        new, renew = self._new_entries()
        status = app.status()
        self.ticking = status.kind in TICKING
        out = {
            "banner": banner_html(status),
            "player": str(app.video_path) if app.video_path else None,
            "frames": self._frames(),
            "talk": voice_bar_html(app.link.token),  # sent once: the page's script owns it
        }
        if renew or any(isinstance(e.event, _CHAT) for e in new) or \
                self._chat_key != (app.cleared_at, len(app.answers)):
            out["chat"], out["cited"] = self._chat()
        if renew or any(isinstance(e.event, _WORK) for e in new):
            out["work"] = work_html(work_rows(app.entries(), app.media_end()))
        if renew or new:
            out["strip"] = self._strip.html(app.origin(), relative=app.mode == "file")
        if renew or any(isinstance(e.event, _VOICE) for e in new):
            out["voice"] = self._voice(new)
        values = [self._changed(name, out.get(name, SKIP)) for name in OUTPUTS]
        return values if any(v is not SKIP for v in values) else None

    def _changed(self, name: str, value: Any) -> Any:
        if value is SKIP or (name in self._sent and self._sent[name] == value):
            return SKIP
        self._sent[name] = value
        return value

    def _new_entries(self) -> tuple[list, bool]:
        """Timeline entries since the last call; ``renew`` when the conversation changed
        (a new video, the camera, a forgotten memory): everything is read again."""
        app = self.app
        runner = app.conversation()
        renew = runner is not self._runner
        if renew:
            self._runner, self._read, self._strip = runner, 0, ConversationStrip()
            self._playing = None
        length = app.timeline_length()
        if length == self._read:
            return [], renew
        new = list(app.entries()[self._read:length])
        self._read = length
        self._strip.feed(new)
        return new, renew

    def _chat(self) -> tuple[list[dict], str]:
        app = self.app
        self._chat_key = (app.cleared_at, len(app.answers))
        view = chat_view(app.entries()[app.cleared_at:], app.answers, app.media_end())
        frames = [Cited(c.start, c.end, c.keyframe or app.frame_at(c.start), c.text)
                  for c in view.cited[:4]]
        heading = f"Cited for “{view.question}”" if view.question else "Cited moments"
        return view.messages, frames_html(
            frames, "Key frames an answer cites show here; click one to play from there.",
            heading if frames else "")

    def _frames(self) -> str:
        frames = self.app.keyframes()
        empty = ("Key frames appear here as the video is watched." if self.app.mode != "idle"
                 else "No video yet.")
        heading = f"{len(frames)} key frame{'s' if len(frames) != 1 else ''} · click one to " \
                  f"play from there" if frames else ""
        return frames_html(frames, empty, heading)

    def _voice(self, new: list) -> Any:
        """The reply that started playing, as audio; None when the one playing was cut."""
        for entry in new:
            e = entry.event
            if isinstance(e, SpeechStopped) and e.utterance_id == self._playing:
                self._playing = None
                return None
            if isinstance(e, SpeechPlayed):
                self._playing = e.utterance_id
        if self.app.streams_voice:  # the page plays it from its audio socket
            return SKIP
        if self.voice is None or self._playing is None or \
                self._sent.get("voice_id") == self._playing:
            return SKIP
        self._sent["voice_id"] = self._playing
        text = next((e.event.text for e in reversed(self.app.entries())
                     if isinstance(e.event, SpeechQueued)
                     and e.event.utterance_id == self._playing), "")
        return self.voice(text, self.app.directory / f"{self._playing}.wav") if text else SKIP
