"""The Gradio layout: small builders, one per panel, wired to `demos.handlers.Handlers`.

Top of ``demos``. Each builder lays out one panel and returns its components in a small
dataclass; `build_app` composes them and connects events; `launch` serves the app. No
logic lives here: handlers call `demos.state.AppSession`, panels render `demos.views`.
The status banner sits at the top; the chat, with the key frames its answers cite beside
it, sits next to the player. One stream per tab (`Handlers.live`, started on page load)
pushes every live panel when it changes; there is no polling timer in the page.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from demos.handlers import Handlers
from demos.labels import Status
from demos.registry import SessionRegistry
from demos.uploads import VIDEO_EXTENSIONS
from demos.views import SEEK_JS, banner_html, voice_bar_html
from demos.wire import add_audio_route

__all__ = ["CSS", "DEFAULT_CONCURRENCY", "QUEUE_IDLE_POLL_S", "build_app", "launch",
           "quiet_queue"]

logger = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 4
"""Events of one kind served at once (uploads, searches, messages); each returns quickly,
since ingests run in the bounded `demos.ingest.IngestPool`."""

QUEUE_IDLE_POLL_S = 0.05
"""How often Gradio's queue looks for a new event when it has none. Gradio polls every
1 ms, which alone costs ~7% of a core on an idle server (0.7% at 50 ms, measured with an
empty Blocks); 50 ms delays the start of an event by at most that. Progress updates are
polled at 10x that (this app shows none)."""

CSS = """
.venus-voicebar {display: flex; gap: 10px; align-items: center; margin: 4px 0;}
#venus-talk {padding: 6px 14px; border-radius: 16px; border: 1px solid #bbb; cursor: pointer;
  background: #f4f4f4; font-size: 14px;}
#venus-talk[data-on=true] {background: #ffe0e0; border-color: #d66;}
#venus-agent-state {padding: 3px 10px; border-radius: 10px; font-size: 13px; background: #eee;}
#venus-agent-state[data-state=thinking] {background: #fff2b3;}
#venus-agent-state[data-state=speaking] {background: #c8f0c8;}
.venus-banner {padding: 8px 12px; border-radius: 8px; font-size: 15px; background: #eef3ff;
  border: 1px solid #c9d6f5;}
.venus-banner-ready {background: #e7f7e9; border-color: #b9e3bf;}
.venus-banner-loading, .venus-banner-queued {background: #fff7e0; border-color: #f0dc9c;}
.venus-banner-camera {background: #e8f4ff; border-color: #b5d5f5;}
.venus-banner-behind, .venus-banner-error, .venus-banner-full {background: #ffe9e6;
  border-color: #f3beb6;}
.venus-bar {height: 6px; background: #f1e3b3; border-radius: 3px; margin-top: 6px;}
.venus-bar div {height: 6px; background: #d29a00; border-radius: 3px;}
#venus-chat a[href^="#venus-t="], .venus-frames a, .venus-result a {display: inline-block;
  padding: 0 7px; margin: 0 1px; border-radius: 10px; background: #dbe7ff; color: #1d3f8f;
  font-family: monospace; font-size: 0.92em; text-decoration: none; cursor: pointer;}
.venus-result ol, .venus-result ul {margin: 4px 0 0 18px;}
.venus-result details {display: inline-block; margin-left: 6px;}
.venus-result summary {cursor: pointer; color: #555; font-size: 0.9em;}
.venus-options {font-size: 0.85em; opacity: .75;}
.venus-heading {font-size: 13px; font-weight: 600; margin-bottom: 4px;}
.venus-frames {display: flex; flex-wrap: wrap; gap: 6px;}
.venus-frame {display: flex; flex-direction: column; width: 150px; cursor: pointer;
  border: 1px solid #ccc; border-radius: 6px; padding: 3px; background: white; text-align: left;}
#venus-cited .venus-frame {width: 100%;}
.venus-frame img {width: 100%; border-radius: 4px;}
.venus-time {font-weight: 600; font-family: monospace;}
.venus-text {font-size: 11px; opacity: .8;}
.venus-strip {display: flex; gap: 2px; overflow-x: auto; padding: 4px 0;}
.venus-cell {min-width: 42px; text-align: center; border-radius: 4px; padding: 2px 3px;
  font-size: 11px; display: flex; flex-direction: column;}
.venus-cell small {font-size: 9px; opacity: .7; font-family: monospace;}
.venus-cell b {font-size: 9px; font-weight: 600;}
.venus-run {min-width: 70px;}
.venus-silent {background: #eef0f3;} .venus-user {background: #cfe3ff;}
.venus-assistant {background: #d6f5d6;} .venus-both {background: #ffd9a8;}
.venus-legend {font-size: 11px; opacity: .8;}
.venus-legend span {padding: 0 4px; border-radius: 3px;}
.venus-work {width: 100%; font-size: 13px; border-collapse: collapse;}
.venus-work td, .venus-work th {border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left;}
.venus-actions button {margin-right: 4px; padding: 1px 8px; border-radius: 6px;
  border: 1px solid #bbb; background: white; cursor: pointer;}
.venus-actions button:disabled {opacity: .35; cursor: default;}
.venus-state {padding: 1px 6px; border-radius: 8px; background: #eee; font-size: 12px;}
.venus-delivered {background: #c8f0c8;} .venus-failed {background: #ffd0d0;}
.venus-running, .venus-queued {background: #fff2b3;} .venus-cancelled {background: #ddd;}
.venus-delivering, .venus-completed {background: #d0e6ff;}
.venus-empty {opacity: .7; font-size: 13px;}
"""

VOICE_JS = "<script>\n" + (Path(__file__).parent / "static" / "voice.js").read_text() + \
    "</script>\n"
"""The page's voice (the audio socket, the talk button, the agent's state)."""

_WORK_JS = ("element.addEventListener('click', (event) => {"
            " const b = event.target.closest('[data-action]');"
            " if (b && !b.disabled) trigger('action', {action: b.dataset.action,"
            " item: b.dataset.item}); });")


@dataclass
class InputPanel:
    upload: gr.File
    sample: gr.Button
    camera: gr.Image
    player: gr.Video


@dataclass
class ConversationPanel:
    chat: gr.Chatbot
    message: gr.Textbox
    send: gr.Button
    voice: gr.Audio
    talk: gr.HTML
    forget: gr.Button
    confirm: gr.Row
    forget_yes: gr.Button
    forget_no: gr.Button


@dataclass
class MemoryPanel:
    frames: gr.HTML
    query: gr.Textbox
    search: gr.Button
    results: gr.HTML


def input_panel() -> InputPanel:
    with gr.Tab("Video file"):
        upload = gr.File(label="Upload a video", file_types=list(VIDEO_EXTENSIONS),
                         elem_id="venus-upload")
        sample = gr.Button("Use the sample lecture", elem_id="venus-sample")
    with gr.Tab("Live camera"):
        camera = gr.Image(sources=["webcam"], streaming=True, type="numpy",
                          label="Camera (one frame a second goes to the assistant)",
                          elem_id="venus-camera")
    player = gr.Video(label="Video", interactive=False, elem_id="venus-player")
    return InputPanel(upload, sample, camera, player)


def conversation_panel() -> ConversationPanel:
    chat = gr.Chatbot(label="Conversation", height=440, elem_id="venus-chat")
    with gr.Row():
        message = gr.Textbox(placeholder="Ask about the video (typing while it answers "
                             "interrupts it)", show_label=False, scale=5, elem_id="venus-message")
        send = gr.Button("Send", variant="primary", scale=1, elem_id="venus-send")
    # Speak to it: the talk button streams the microphone, the reply streams back
    # (demos/static/voice.js, demos.wire); the player below is for frontends without a
    # voice of their own (text playout) and pages whose audio socket could not open.
    talk = gr.HTML(voice_bar_html(None), elem_id="venus-voicebar")
    voice = gr.Audio(label="Assistant's voice", autoplay=True, interactive=False,
                     elem_id="venus-voice")
    forget = gr.Button("Forget this video …", size="sm", variant="secondary",
                       elem_id="venus-forget")
    with gr.Row(visible=False, elem_id="venus-confirm") as confirm:
        gr.Markdown("Forget the video and everything the assistant remembers of it? "
                    "The conversation ends too.")
        forget_yes = gr.Button("Yes, forget it", variant="stop", size="sm",
                               elem_id="venus-forget-yes")
        forget_no = gr.Button("Keep it", size="sm", elem_id="venus-forget-no")
    return ConversationPanel(chat, message, send, voice, talk, forget, confirm, forget_yes,
                             forget_no)


def memory_panel() -> MemoryPanel:
    gr.Markdown("**Memory**: the key frames watched so far (click one to play from there) "
                "and a search of everything seen and said")
    frames = gr.HTML(elem_id="venus-frames")
    with gr.Row():
        query = gr.Textbox(placeholder="Search the video memory", show_label=False, scale=5,
                           elem_id="venus-query")
        search = gr.Button("Search", scale=1, elem_id="venus-search")
    results = gr.HTML(elem_id="venus-results")
    return MemoryPanel(frames, query, search, results)


def build_app(registry: SessionRegistry, *, tts: bool = True, analytics: bool = False
              ) -> gr.Blocks:
    """The whole page for one registry of per-browser sessions."""
    handlers = Handlers(registry, tts=tts)
    with gr.Blocks(title="realtime-venus", analytics_enabled=analytics) as demo:
        banner = gr.HTML(banner_html(Status("idle", "Starting …")), elem_id="venus-status")
        with gr.Row():
            with gr.Column(scale=3):
                inputs = input_panel()
            with gr.Column(scale=4):
                talk = conversation_panel()
            with gr.Column(scale=2, min_width=180):
                cited = gr.HTML(elem_id="venus-cited")
        gr.Markdown("**Background work**: summaries, quizzes, whole-video searches and "
                    "timers run here while the conversation goes on")
        work = gr.HTML(elem_id="venus-work", js_on_load=_WORK_JS)
        gr.Markdown("**Conversation, second by second**")
        strip = gr.HTML(elem_id="venus-timeline")
        memory = memory_panel()
        live = [banner, talk.chat, cited, work, strip, memory.frames, talk.voice, inputs.player,
                talk.talk]
        _wire(demo, handlers, registry, inputs, talk, work, memory, live)
    return demo


def _wire(demo: gr.Blocks, h: Handlers, registry: SessionRegistry, inputs: InputPanel,
          talk: ConversationPanel, work: gr.HTML, memory: MemoryPanel, live: list) -> None:
    tabs = registry.options.max_sessions
    quiet = {"show_progress": "hidden"}
    demo.load(h.live, None, live, concurrency_limit=tabs, concurrency_id="live", **quiet)
    demo.unload(h.closed)
    inputs.upload.upload(h.upload, inputs.upload, None, **quiet)
    inputs.sample.click(h.sample, None, None, **quiet)
    inputs.camera.stream(h.frame, inputs.camera, None, stream_every=1.0,
                         concurrency_limit=tabs, concurrency_id="media", **quiet)
    for event in (talk.send.click, talk.message.submit):
        event(h.send, talk.message, talk.message, **quiet)
    talk.chat.clear(h.clear_chat, None, None, **quiet)
    talk.forget.click(lambda: gr.update(visible=True), None, talk.confirm, **quiet)
    talk.forget_no.click(lambda: gr.update(visible=False), None, talk.confirm, **quiet)
    talk.forget_yes.click(h.forget, None, [talk.confirm, memory.results], **quiet)
    work.action(h.work_action, None, None, **quiet)
    for event in (memory.search.click, memory.query.submit):
        event(h.search, memory.query, memory.results, **quiet)


def launch(registry: SessionRegistry, *, server_name: str = "127.0.0.1",
           server_port: int | None = None, share: bool = False, tts: bool = True,
           auth: list[tuple[str, str]] | None = None, analytics: bool = False,
           prevent_thread_lock: bool = False) -> gr.Blocks:
    """Serve the app; every session's files live under ``registry.options.root``.
    ``auth``: (user, password) pairs that may log in (None: no login)."""
    demo = build_app(registry, tts=tts, analytics=analytics)
    registry.warm_up()
    roots = [str(Path(registry.options.root).resolve()),
             str(Path(registry.options.samples_dir).resolve())]
    demo.queue(default_concurrency_limit=DEFAULT_CONCURRENCY)
    quiet_queue(demo)
    demo.launch(server_name=server_name, server_port=server_port, share=share,
                allowed_paths=roots, max_file_size=f"{registry.options.max_upload_mb:g}mb",
                auth=auth or None, auth_message="realtime-venus: log in to use this app",
                css=CSS, head=SEEK_JS + VOICE_JS, prevent_thread_lock=True, quiet=True)
    add_audio_route(demo.server_app, registry)
    if not prevent_thread_lock:
        demo.block_thread()
    return demo


def quiet_queue(demo: gr.Blocks, poll_s: float = QUEUE_IDLE_POLL_S) -> bool:
    """Slow the idle polling of ``demo``'s queue (after ``demo.queue()``) to ``poll_s``;
    False (and a warning) when this Gradio's queue has no such setting."""
    queue = getattr(demo, "_queue", None)
    names = ("sleep_when_free", "progress_update_sleep_when_free")
    if queue is None or not all(isinstance(getattr(queue, n, None), float) for n in names):
        logger.warning("gradio %s: its queue's idle poll could not be slowed; an idle "
                       "server may use several %% of a core", gr.__version__)
        return False
    queue.sleep_when_free = max(queue.sleep_when_free, poll_s)
    queue.progress_update_sleep_when_free = max(queue.progress_update_sleep_when_free,
                                                10 * poll_s)
    return True
