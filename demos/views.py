"""HTML for the page's panels, from timeline entries, memory moments and the app status.

Pure functions under the page feed (no Gradio): `banner_html` (the one status line at
the top), `frames_html` (key frames as buttons that seek the player; thumbnails are
served as files by Gradio's file route, never inlined), `moments_html` (search hits
and cited moments), `timeline_html` (the conversation second by second, quiet stretches
folded into one box so an idle conversation does not change the page). `SEEK_JS` is the
page script: a click on a chip (``#venus-t=<s>``) or on anything with ``data-seek``
seeks the video player, in the browser, with no request to the server.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from demos.labels import Status, clock
from demos.results import Cited
from venus.events import (
    ChunkReceived,
    ControlToken,
    ControlTokenEmitted,
    OverlapClassified,
    PlaybackAcknowledged,
    SpeechPlayed,
    SpeechStopped,
    UserWordsTranscribed,
)
from venus.timeline import TimelineEntry

__all__ = ["SEEK_JS", "ConversationStrip", "banner_html", "file_url", "frames_html", "moments_html",
           "timeline_html", "voice_bar_html"]

SEEK_JS = """
<script>
document.addEventListener('click', (event) => {
  const target = event.target.closest('a[href^="#venus-t="], [data-seek]');
  if (!target) return;
  event.preventDefault();
  event.stopPropagation();
  const seconds = parseFloat(target.dataset.seek ??
                             target.getAttribute('href').slice('#venus-t='.length));
  const video = document.querySelector('#venus-player video');
  if (!video || Number.isNaN(seconds)) return;
  video.currentTime = seconds;
  video.scrollIntoView({block: 'nearest'});
}, true);
(() => {
  const opened = new Set();
  const key = (d) => {
    const result = d.closest('.venus-result');
    const li = d.closest('li');
    return (result?.querySelector('b')?.textContent || '') + '|' +
           (li ? li.textContent.replace(d.textContent, '') : '');
  };
  document.addEventListener('toggle', (event) => {
    const d = event.target;
    if (!(d instanceof HTMLDetailsElement) || !d.closest('#venus-chat')) return;
    d.open ? opened.add(key(d)) : opened.delete(key(d));
  }, true);
  new MutationObserver(() => {
    if (!opened.size) return;
    for (const d of document.querySelectorAll('#venus-chat details:not([open])'))
      if (opened.has(key(d))) d.open = true;
  }).observe(document.documentElement, {childList: true, subtree: true});
})();
</script>
"""
"""Page script: chips and ``data-seek`` elements seek the player (capture phase, so a
link inside the chat never navigates); a quiz answer the user opened stays open when
the chat is drawn again (each new message redraws it)."""


def banner_html(status: Status) -> str:
    bar = ""
    if status.fraction is not None:
        pct = max(0.0, min(1.0, status.fraction)) * 100
        bar = f"<div class='venus-bar'><div style='width:{pct:.0f}%'></div></div>"
    return (f"<div class='venus-banner venus-banner-{status.kind}' data-kind='{status.kind}'>"
            f"<span>{_e(status.text)}</span>{bar}</div>")


def file_url(path: str) -> str:
    """Gradio's route for a file under the app's allowed folders (relative to the page)."""
    return "gradio_api/file=" + quote(str(path))


def frames_html(frames: Sequence[Cited], empty: str, heading: str = "") -> str:
    """Key frames as buttons (thumbnail + time) that seek the player."""
    if not frames:
        return f"<div class='venus-empty'>{_e(empty)}</div>"
    cards = "".join(
        f"<button class='venus-frame' data-seek='{f.start:.2f}' title='Play from "
        f"{clock(f.start)}'>{_img(f.keyframe)}<span class='venus-time'>{clock(f.start)}"
        f"</span>{_caption(f.text)}</button>" for f in frames)
    head = f"<div class='venus-heading'>{_e(heading)}</div>" if heading else ""
    return f"{head}<div class='venus-frames'>{cards}</div>"


def moments_html(moments: Sequence, heading: str = "") -> str:
    """Search hits (`memory.Moment`): thumbnail, span and text; a click seeks the player."""
    frames = [Cited(m.start, m.end, m.keyframe, m.text or m.transcript or m.ocr_text)
              for m in moments]
    return frames_html(frames, heading or "Nothing found.", heading if frames else "")


def _img(path: str | None) -> str:
    return f"<img alt='key frame' loading='lazy' src='{_e(file_url(path))}'/>" if path else ""


def _caption(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    return f"<span class='venus-text'>{_e(text if len(text) <= 90 else text[:89] + '…')}</span>"


# -- the conversation strip ------------------------------------------------------------

_OVERLAP_WORDS = {"backchannel": "backchannel", "other_directed": "to someone else",
                  "background": "background", "interruption": "interruption"}
_LEGEND = ("<div class='venus-legend'><span class='venus-user'>you spoke</span> "
           "<span class='venus-assistant'>assistant spoke</span> "
           "<span class='venus-both'>you spoke over it</span> "
           "<span class='venus-silent'>quiet</span> · overlaps are labelled with how they "
           "were taken (backchannel, to someone else, background, interruption)</div>")


class ConversationStrip:
    """The conversation second by second, read incrementally from the timeline.

    Streaming state: finished seconds folded into boxes (quiet seconds in a row make one
    box) and the second still being filled. The newest quiet run is drawn without an
    end, so an idle conversation renders the same HTML second after second (and the page
    sends nothing).
    """

    def __init__(self) -> None:
        self.boxes: list[dict] = []
        self._speaking: set[str] = set()
        self._open: dict | None = None  # the newest second: events of its chunk may follow

    def feed(self, entries: Iterable[TimelineEntry]) -> ConversationStrip:
        for entry in entries:
            self._add(entry.event)
        return self

    def html(self, origin: float = 0.0, relative: bool = False, boxes: int = 30) -> str:
        """Times are ``t - origin``, written ``+m:ss`` when ``relative`` (file mode: the
        conversation's seconds are not video time)."""
        shown = list(self.boxes)
        if self._open is not None:
            _fold(shown, self._open, copy=True)
        if not shown:
            return ("<div class='venus-empty'>The conversation starts when a video or the "
                    "camera is on.</div>")

        def label(t: float) -> str:
            return ("+" if relative else "") + clock(t - origin)
        newest = shown[-1]
        return ("<div class='venus-strip'>" + "".join(
            _box(c, label, open_run=c is newest) for c in shown[-boxes:]) + "</div>" + _LEGEND)

    def _add(self, e) -> None:
        if isinstance(e, ChunkReceived):
            if self._open is not None:
                _fold(self.boxes, self._open)
            if self.boxes and e.start >= self.boxes[-1]["last"] + 1.0:
                # the schedule slept through quiet seconds (see demos.live): show them
                _fold(self.boxes, {"t": self.boxes[-1]["last"], "last": e.start, "user": False,
                                   "assistant": False, "talking": False, "overlap": "",
                                   "eos": False})
            # ``talking``: the assistant was already speaking when the second began, so
            # user words in it overlap its speech (a reply started after them does not).
            self._open = {"t": e.start, "last": e.end, "user": False,
                          "assistant": bool(self._speaking), "talking": bool(self._speaking),
                          "overlap": "", "eos": False}
        elif isinstance(e, SpeechPlayed):
            self._speaking.add(e.utterance_id)
        elif isinstance(e, (SpeechStopped, PlaybackAcknowledged)):
            self._speaking.discard(e.utterance_id)
        cell = self._open
        if cell is None:
            return
        if isinstance(e, ControlTokenEmitted) and ControlToken(e.token) is ControlToken.TURN_EOS:
            cell["eos"] = True
        elif isinstance(e, UserWordsTranscribed):
            cell["user"] = True
        elif isinstance(e, OverlapClassified):
            cell["overlap"] = str(getattr(e.kind, "value", e.kind))
        elif isinstance(e, SpeechPlayed):
            cell["assistant"] = True


def _fold(boxes: list[dict], cell: dict, copy: bool = False) -> None:
    """Append one second: a quiet one extends a quiet run at the end."""
    quiet = not (cell["user"] or cell["assistant"] or cell["overlap"] or cell["eos"])
    if quiet and boxes and boxes[-1].get("run"):
        boxes[-1] = {**boxes[-1], "last": cell["last"]} if copy else boxes[-1]
        boxes[-1]["last"] = cell["last"]
        return
    boxes.append({**cell, "run": quiet})


def timeline_html(entries: Iterable[TimelineEntry], origin: float = 0.0,
                  relative: bool = False, boxes: int = 30) -> str:
    """`ConversationStrip` over ``entries`` at once."""
    return ConversationStrip().feed(entries).html(origin, relative, boxes)


def _box(c: dict, label, open_run: bool) -> str:
    if c.get("run"):
        until = "" if open_run else f"–{label(c['last']).lstrip('+')}"
        return (f"<div class='venus-cell venus-silent venus-run' title='quiet'>"
                f"<span>quiet</span><small>{_e(label(c['t']))}{_e(until)}</small></div>")
    who = "both" if c["user"] and c["talking"] else "user" if c["user"] else \
        "assistant" if c["assistant"] else "silent"
    words = {"both": "both", "user": "you", "assistant": "reply", "silent": "·"}[who]
    if c["eos"] and who != "user":
        words = "end of reply" if who == "silent" else f"{words} · end"
    overlap = _OVERLAP_WORDS.get(c["overlap"], c["overlap"].replace("_", " "))
    tag = f"<b>{_e(overlap)}</b>" if overlap else ""
    return (f"<div class='venus-cell venus-{who}' title='{_e(label(c['t']))} {_e(overlap)}'>"
            f"<span>{_e(words)}</span>{tag}<small>{_e(label(c['t']))}</small></div>")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def voice_bar_html(token: str | None) -> str:
    """The talk button and the agent's state (listening / thinking / speaking, set by the
    page's own playback in `demos/static/voice.js`); ``token`` opens the tab's audio
    socket (None: not yet, the page feed sends it)."""
    link = f' data-link="{html.escape(token)}"' if token else ""
    return ('<div class="venus-voicebar">'
            '<button id="venus-talk" type="button" data-on="false" '
            'title="Start or stop the microphone: speak to ask, or to interrupt">🎙 Talk</button>'
            f'<span id="venus-agent-state" data-state="listening"{link} aria-live="polite">'
            'listening</span></div>')
