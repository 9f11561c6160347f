"""`AppSession`, `SessionRegistry` and the Gradio handlers called directly (no browser):
a real sample lecture ingested by the real memory, conversation loops in simulated time."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from demos.handlers import Handlers
from demos.page import OUTPUTS, PageFeed
from demos.registry import SessionRegistry
from demos.state import AppOptions, AppSession
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
def test_load_video_then_answers_with_cited_moments_in_video_time(tmp_path, lecture):
    app = _app(tmp_path)
    local = app.load_video(lecture)
    assert local.parent == app.directory and local.exists() and app.mode == "file"
    assert app.status().kind in ("queued", "loading")
    assert app.wait_ingest(300)
    status = app.status()
    assert status.kind == "ready" and "watched all 0:31 of lecture.mp4" in status.text
    frames = app.keyframes()
    assert frames and all(Path(f.keyframe).is_file() for f in frames)
    assert len({f.keyframe for f in frames}) == len(frames)  # each key frame once
    assert f"{len(frames)} key frame" in status.text
    assert "pH" in " ".join(m.text for m in app.search("pH scale"))

    app.join()  # the bounded loop that started with the load
    app.ask("What is the pH scale?")
    app.join()
    spoken = [e.event for e in app.entries() if isinstance(e.event, SpeechQueued)]
    answer = app.answers[spoken[0].text]
    assert answer.citations and answer.citations[0].end <= 32
    # the conversation starts after the video: its first second is the video's end
    assert app.entries()[0].time == pytest.approx(31.0, abs=1.0)
    directory = app.directory
    app.close()
    assert not directory.exists() and app.closed_event.is_set()


@pytest.mark.slow
def test_a_question_before_the_video_is_watched_says_what_it_covers(tmp_path, lecture):
    import threading

    from demos.ingest import IngestJob, IngestPool
    from memory.video import open_video

    class Busy:  # holds the one worker, so this tab's own ingest waits in line
        def __init__(self) -> None:
            self.gate = threading.Event()

        def ingest(self, chunks, finish: bool = True) -> dict:
            self.gate.wait()
            for _ in chunks:
                pass
            return {}

        def finish(self) -> int:
            return 0

    pool, busy = IngestPool(workers=1), Busy()
    blocker = pool.submit(IngestJob(lecture, busy, 31, lambda: 0.0))
    app = _app(tmp_path, chunks=3)
    app.pool = pool
    app.load_video(lecture)
    assert app.status().kind == "queued"
    assert app._answer("What is the pH scale?", 500.0).startswith(
        "I haven't watched any of the video yet")
    with open_video(lecture) as source:  # the first ten seconds are in (as a worker would)
        for chunk in source:
            if chunk.index == 10:
                break
            app.memory.add(chunk)
    app.memory.flush()
    text = app._answer("What is the pH scale?", 500.0)
    assert text.startswith("So far I've watched 0:00-0:10 of 0:31. ")
    busy.gate.set()
    assert blocker.wait(60)
    app.close()
    pool.shutdown()


@pytest.mark.slow
def test_two_ingests_at_once_give_what_one_at_a_time_gives(tmp_path, lecture):
    # The embedded models are shared by every tab; each memory owns its streaming state.
    registry = SessionRegistry(_options(tmp_path, chunks=2), lambda m: FakeFrontend(),
                               clock=SimulatedClock)
    registry.models = MODELS
    alone = registry.get("alone")
    alone.load_video(lecture)
    assert alone.wait_ingest(300)
    a, b = registry.get("a"), registry.get("b")
    a.load_video(lecture), b.load_video(lecture)
    assert a.wait_ingest(300) and b.wait_ingest(300)
    texts = [[m.text for m in app.memory.moments(0, 40)] for app in (alone, a, b)]
    assert texts[0] and texts[1] == texts[0] and texts[2] == texts[0]
    registry.close_all()


@pytest.mark.slow
def test_two_browser_sessions_share_nothing(tmp_path, lecture):
    registry = SessionRegistry(_options(tmp_path, chunks=40), lambda m: FakeFrontend(),
                               clock=SimulatedClock)
    registry.models = MODELS
    a, b = registry.get("alice"), registry.get("bob")
    assert registry.get("alice") is a and a.directory != b.directory
    a.load_video(lecture)
    assert a.wait_ingest(300)
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
    app = registry.get("tab-9")
    feed = PageFeed(app)
    assert "Upload a video" in dict(zip(OUTPUTS, feed.next(), strict=True))["banner"]
    fake = tmp_path / "notes.mp4"
    fake.write_text("not a video at all\n" * 100)
    with pytest.warns(UserWarning, match="Upload refused: .*notes.mp4"):
        handlers.upload(str(fake), request)
    assert app.video_path is None and app.mode == "idle"  # nothing it had is lost
    banner = dict(zip(OUTPUTS, feed.next(), strict=True))["banner"]
    assert "Upload refused" in banner and "notes.mp4" in banner and str(tmp_path) not in banner

    assert handlers.send("  ", request) == "" and app._runner is None  # blank: nothing starts
    assert handlers.send("set a timer for 30 seconds", request) == ""
    app.join()
    update = dict(zip(OUTPUTS, feed.next(), strict=True))
    assert update["chat"][0] == {"role": "user", "content": "set a timer for 30 seconds"}
    assert "Timer for 30 seconds" in update["work"] and "venus-cell" in update["strip"]
    handlers.work_action(request, SimpleNamespace(_data={"action": "cancel"}))  # no item: no-op
    directory = app.directory
    handlers.closed(request)
    assert len(registry) == 0 and not directory.exists()
