"""The Gradio layout: small builders, one per panel, wired to `demos.handlers.Handlers`.

Top of ``demos``. Each builder lays out one panel and returns its components in a small
dataclass; `build_app` composes them and connects events; `launch` serves the app. No
logic lives here: handlers call `demos.state.AppSession`, panels render `demos.views`.
A `gr.Timer` refreshes the conversation, timeline strip and work panel twice a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from demos.handlers import Handlers
from demos.state import SessionRegistry
from demos.uploads import VIDEO_EXTENSIONS
from demos.views import SEEK_JS

__all__ = ["CSS", "build_app", "launch"]

CSS = """
.venus-strip {display: flex; gap: 2px; overflow-x: auto; padding: 4px 0;}
.venus-cell {min-width: 34px; text-align: center; border-radius: 4px; padding: 2px;
  font-family: monospace; font-size: 12px; display: flex; flex-direction: column;}
.venus-cell small {font-size: 9px; opacity: .7;}
.venus-cell b {font-size: 8px; font-weight: 600;}
.venus-silent {background: #eef0f3;} .venus-user {background: #cfe3ff;}
.venus-assistant {background: #d6f5d6;} .venus-both {background: #ffd9a8;}
.venus-legend {font-size: 11px; opacity: .8;}
.venus-legend span {padding: 0 4px; border-radius: 3px;}
.venus-work {width: 100%; font-size: 13px; border-collapse: collapse;}
.venus-work td, .venus-work th {border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left;}
.venus-state {padding: 1px 6px; border-radius: 8px; background: #eee; font-size: 12px;}
.venus-delivered {background: #c8f0c8;} .venus-failed {background: #ffd0d0;}
.venus-running, .venus-queued {background: #fff2b3;} .venus-cancelled {background: #ddd;}
.venus-delivering, .venus-completed {background: #d0e6ff;}
.venus-moments {display: flex; flex-wrap: wrap; gap: 8px;}
.venus-moment {display: flex; flex-direction: column; width: 170px; cursor: pointer;
  border: 1px solid #ccc; border-radius: 6px; padding: 4px; background: white; text-align: left;}
.venus-moment img {width: 160px; border-radius: 4px;}
.venus-time {font-weight: 600; font-family: monospace;}
.venus-text {font-size: 11px;}
.venus-empty {opacity: .7; font-size: 13px;}
"""


@dataclass
class InputPanel:
    upload: gr.File
    sample: gr.Button
    camera: gr.Image
    microphone: gr.Audio
    player: gr.Video
    status: gr.Markdown


@dataclass
class ConversationPanel:
    chat: gr.Chatbot
    message: gr.Textbox
    send: gr.Button
    voice: gr.Audio


@dataclass
class WorkPanel:
    table: gr.HTML
    item: gr.Dropdown
    cancel: gr.Button
    retry: gr.Button


@dataclass
class MemoryPanel:
    gallery: gr.Gallery
    query: gr.Textbox
    search: gr.Button
    results: gr.HTML
    cited: gr.HTML
    seek: gr.Number


def input_panel() -> InputPanel:
    with gr.Tab("Video file"):
        upload = gr.File(label="Upload a video", file_types=list(VIDEO_EXTENSIONS),
                         elem_id="venus-upload")
        sample = gr.Button("Use the sample lecture", elem_id="venus-sample")
    with gr.Tab("Live camera"):
        camera = gr.Image(sources=["webcam"], streaming=True, type="numpy",
                          label="Camera (one frame a second goes to the assistant)",
                          elem_id="venus-camera")
    microphone = gr.Audio(sources=["microphone"], streaming=True, type="numpy",
                          label="Microphone: speak to ask or to interrupt")
    player = gr.Video(label="Video", interactive=False, elem_id="venus-player")
    status = gr.Markdown("Starting …", elem_id="venus-status")
    return InputPanel(upload, sample, camera, microphone, player, status)


def conversation_panel() -> ConversationPanel:
    chat = gr.Chatbot(label="Conversation", height=360, elem_id="venus-chat")
    with gr.Row():
        message = gr.Textbox(placeholder="Ask about the video (typing while it answers "
                             "interrupts it)", show_label=False, scale=5, elem_id="venus-message")
        send = gr.Button("Send", variant="primary", scale=1, elem_id="venus-send")
    voice = gr.Audio(label="Assistant's voice", autoplay=True, interactive=False,
                     elem_id="venus-voice")
    return ConversationPanel(chat, message, send, voice)


def timeline_panel() -> gr.HTML:
    gr.Markdown("**Timeline** — the one-second schedule: control token per second, who "
                "is speaking, and how overlapping speech was classified.")
    return gr.HTML(elem_id="venus-timeline")


def work_panel() -> WorkPanel:
    gr.Markdown("**Background work** (the harness)")
    table = gr.HTML(elem_id="venus-work")
    with gr.Row():
        item = gr.Dropdown(label="Work item", choices=[], scale=3, elem_id="venus-item")
        cancel = gr.Button("Cancel", scale=1, elem_id="venus-cancel")
        retry = gr.Button("Retry", scale=1, elem_id="venus-retry")
    return WorkPanel(table, item, cancel, retry)


def memory_panel() -> MemoryPanel:
    gr.Markdown("**Memory** — key frames (click to play from there), search, cited moments")
    gallery = gr.Gallery(label="Key frames", columns=6, height="auto", object_fit="contain",
                         elem_id="venus-gallery")
    with gr.Row():
        query = gr.Textbox(placeholder="Search the video memory", show_label=False, scale=5,
                           elem_id="venus-query")
        search = gr.Button("Search", scale=1, elem_id="venus-search")
    results = gr.HTML(elem_id="venus-results")
    cited = gr.HTML(elem_id="venus-cited")
    seek = gr.Number(visible=False)
    return MemoryPanel(gallery, query, search, results, cited, seek)


def build_app(registry: SessionRegistry, *, tts: bool = True, refresh_s: float = 0.5
              ) -> gr.Blocks:
    """The whole page for one registry of per-browser sessions."""
    handlers = Handlers(registry, tts=tts)
    with gr.Blocks(title="realtime-venus") as demo:
        gr.Markdown("## realtime-venus — streaming video QA with interruptions and "
                    f"background work · frontend: {registry.options.frontend.describe()}")
        with gr.Row():
            with gr.Column(scale=3):
                inputs = input_panel()
            with gr.Column(scale=4):
                talk = conversation_panel()
        strip = timeline_panel()
        work = work_panel()
        memory = memory_panel()
        timer = gr.Timer(refresh_s)
        _wire(demo, handlers, inputs, talk, strip, work, memory, timer)
    return demo


def _wire(demo: gr.Blocks, h: Handlers, inputs: InputPanel, talk: ConversationPanel,
          strip: gr.HTML, work: WorkPanel, memory: MemoryPanel, timer: gr.Timer) -> None:
    loaded = [inputs.player, inputs.status, memory.gallery]
    demo.load(h.opened, None, inputs.status)
    demo.unload(h.closed)
    inputs.upload.upload(h.upload, inputs.upload, loaded, concurrency_limit=2)
    inputs.sample.click(h.sample, None, loaded, concurrency_limit=2)
    inputs.camera.stream(h.frame, inputs.camera, None, stream_every=1.0,
                         concurrency_limit=None, show_progress="hidden")
    inputs.microphone.stream(h.audio, inputs.microphone, None, stream_every=0.5,
                             concurrency_limit=None, show_progress="hidden")
    for event in (talk.send.click, talk.message.submit):
        event(h.send, talk.message, talk.message, concurrency_limit=None, show_progress="hidden")
    timer.tick(h.refresh, None, [talk.chat, strip, work.table, work.item, memory.cited,
                                 talk.voice, memory.gallery],
               concurrency_limit=None, show_progress="hidden")
    work.cancel.click(h.cancel, work.item, None, concurrency_limit=None)
    work.retry.click(h.retry, work.item, None, concurrency_limit=None)
    for event in (memory.search.click, memory.query.submit):
        event(h.search, memory.query, memory.results, concurrency_limit=None)
    memory.gallery.select(h.seek_time, None, memory.seek, concurrency_limit=None).then(
        None, memory.seek, None,
        js="(t) => { const v = document.querySelector('#venus-player video');"
           " if (v) { v.currentTime = t; } return []; }")


def launch(registry: SessionRegistry, *, server_name: str = "127.0.0.1",
           server_port: int | None = None, share: bool = False, tts: bool = True,
           prevent_thread_lock: bool = False) -> gr.Blocks:
    """Serve the app; every session's files live under ``registry.options.root``."""
    demo = build_app(registry, tts=tts)
    roots = [str(Path(registry.options.root).resolve()),
             str(Path(registry.options.samples_dir).resolve())]
    demo.queue(default_concurrency_limit=None)
    demo.launch(server_name=server_name, server_port=server_port, share=share,
                allowed_paths=roots, max_file_size=f"{registry.options.max_upload_mb:g}mb",
                css=CSS, head=SEEK_JS, prevent_thread_lock=prevent_thread_lock, quiet=True)
    return demo
