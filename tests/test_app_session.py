"""`AppSession`, `SessionRegistry` and the Gradio handlers called directly (no browser):
a real sample lecture ingested by the real memory, conversation loops in simulated time."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pytest

from demos.handlers import Handlers
from demos.state import AppOptions, AppSession, SessionRegistry
from memory import MemoryModels
from venus import SimulatedClock, WorkState
from venus.events import SpeechQueued, UserWordsTranscribed
from venus.testing import FakeFrontend

MODELS = MemoryModels()  # the embedded models, loaded once for this module


@pytest.fixture(scope="module")
def lecture(tmp_path_factory) -> Path:
    from memory.samples import make_lecture

    return Path(make_lecture(0.5, 0, tmp_path_factory.mktemp("lecture")).video)


def _options(tmp_path: Path, chunks: int = 30) -> AppOptions:
    return AppOptions(root=tmp_path / "sessions", max_chunks=chunks, drain_s=60.0,
                      words_per_second=5.0, samples_dir=tmp_path / "samples")


def _app(tmp_path: Path, name: str = "tab-1", chunks: int = 30) -> AppSession:
    return AppSession(name, _options(tmp_path, chunks), frontend_factory=lambda m: FakeFrontend(),
                      models=MODELS, clock=SimulatedClock)


@pytest.mark.slow
def test_load_video_reports_progress_then_answers_with_cited_moments(tmp_path, lecture):
    app = _app(tmp_path)
    reports: list[tuple[float, str]] = []
    stats = app.load_video(lecture, progress=lambda f, text: reports.append((f, text)))
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(reports) > 10
    assert stats["duration"] == pytest.approx(31.0, abs=1.0)
    assert app.video_path.parent == app.directory and app.video_path.exists()
    frames = app.keyframes()
    assert frames and all(Path(m.keyframe).is_file() for m in frames)
    assert "pH" in " ".join(m.text for m in app.search("pH scale"))

    app.join()  # the bounded loop that started after the load
    app.ask("What is the pH scale?")
    app.join()
    answer = app.answers[-1]
    assert answer.citations and answer.citations[0].end <= stats["duration"] + 1
    spoken = [e.event for e in app.entries() if isinstance(e.event, SpeechQueued)]
    assert spoken[0].text == answer.text
    # the conversation starts after the video: its first second is the video's end
    assert app.entries()[0].time == pytest.approx(stats["duration"])
    directory = app.directory
    app.close()
    assert not directory.exists()


@pytest.mark.slow
def test_two_browser_sessions_share_nothing(tmp_path, lecture):
    registry = SessionRegistry(_options(tmp_path, chunks=40), lambda m: FakeFrontend(),
                               clock=SimulatedClock)
    registry.models = MODELS
    a, b = registry.get("alice"), registry.get("bob")
    assert registry.get("alice") is a and a.directory != b.directory
    a.load_video(lecture)
    a.join()
    a.ask("summarize the whole video")
    b.ask("What is the pH scale?")
    a.join(), b.join()
    assert a.keyframes() and not b.keyframes() and not b.search("pH scale")
    items_a = {e.event.item_id for e in a.entries() if hasattr(e.event, "item_id")
               and e.event.item_id}
    assert items_a and all(i.startswith("alice/") for i in items_a)
    assert not any(getattr(e.event, "item_id", None) for e in b.entries())
    said_b = [e.event.text for e in b.entries() if isinstance(e.event, UserWordsTranscribed)]
    assert said_b == ["What is the pH scale?"]
    states = [e.event.state for e in a.entries() if type(e.event).__name__ ==
              "WorkItemStateChanged"]
    assert states[-1] is WorkState.DELIVERED
    dirs = [a.directory, b.directory]
    registry.close_all()
    assert len(registry) == 0 and not any(d.exists() for d in dirs)


def test_handlers_refuse_a_bad_upload_and_clean_up_on_close(tmp_path):
    registry = SessionRegistry(_options(tmp_path, chunks=3), lambda m: FakeFrontend(),
                               clock=SimulatedClock)
    handlers = Handlers(registry, tts=False)
    request = SimpleNamespace(session_hash="tab-9")
    assert "Upload a video" in handlers.opened(request)
    fake = tmp_path / "notes.mp4"
    fake.write_text("not a video at all\n" * 100)
    with pytest.warns(UserWarning, match="Upload refused: .*notes.mp4"):
        player, status, gallery = handlers._load(
            request, lambda app, cb: app.load_video(str(fake), cb), lambda *a, **k: None)
    assert status.startswith("⚠️ Upload refused")
    assert player == gr.skip() and gallery == gr.skip()  # the player and gallery keep theirs
    app = registry.get("tab-9")
    assert app.video_path is None and handlers.gallery(request) == []

    assert handlers.send("  ", request) == "" and app._runner is None  # blank: nothing starts
    assert handlers.send("set a timer for 30 seconds", request) == ""
    app.join()
    chat, strip, work, choices, cited, voice, gallery = handlers.refresh(request)
    assert chat[0] == {"role": "user", "content": "set a timer for 30 seconds"}
    assert "set_timer" in work and "venus-cell" in strip
    assert choices["choices"] == ["tab-9/w1"] and choices["value"] == "tab-9/w1"
    assert "Answers cite" in cited
    assert handlers.refresh(request)[3] == gr.skip()  # unchanged items: the dropdown is left be
    assert voice == gr.skip() and gallery == gr.skip()  # no audio (tts=False), no new frames
    directory = app.directory
    handlers.closed(request)
    assert len(registry) == 0 and not directory.exists()
