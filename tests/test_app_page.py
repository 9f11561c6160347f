"""The app's page feed, ingest pool, banner and work-item actions, without a browser:
real `AppSession`s and conversation loops in simulated time with venus.testing fakes,
and the ingest pool over a real decoded video with a memory that records what it got."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from demos.ingest import IngestJob, IngestPool
from demos.page import OUTPUTS, SKIP, PageFeed
from demos.state import AppOptions, AppSession
from demos.work import work_rows
from venus import SimulatedClock
from venus.events import WorkItemStateChanged, WorkState
from venus.testing import FakeFrontend


def _app(tmp_path: Path, chunks: int = 12, name: str = "tab-1") -> AppSession:
    options = AppOptions(root=tmp_path / "sessions", max_chunks=chunks, drain_s=30.0,
                         words_per_second=5.0, samples_dir=tmp_path / "samples")
    return AppSession(name, options, frontend_factory=lambda m: FakeFrontend(),
                      clock=SimulatedClock)


def _values(values) -> dict:
    return {name: v for name, v in zip(OUTPUTS, values, strict=True) if v is not SKIP}


def test_the_feed_sends_each_output_once_and_nothing_while_nothing_changes(tmp_path):
    app = _app(tmp_path)
    feed = PageFeed(app)
    first = _values(feed.next())
    assert "Upload a video" in first["banner"] and first["chat"] == []
    assert feed.next() is None  # nothing changed: nothing to send
    app.ask("set a timer for 30 seconds")
    app.join()
    update = _values(feed.next())
    assert set(update) >= {"chat", "work", "strip"} and "banner" not in update
    assert update["chat"][0] == {"role": "user", "content": "set a timer for 30 seconds"}
    shown = re.sub(r"<[^>]+>", " ", update["work"])  # what a person reads
    assert "Timer for 30 seconds" in shown and "tab-1" not in shown
    assert feed.next() is None
    app.close()


def test_clearing_the_chat_keeps_the_memory_and_forget_starts_over(tmp_path):
    app = _app(tmp_path)
    feed = PageFeed(app)
    feed.next()
    app.ask("What is the pH scale?")
    app.join()
    chat = _values(feed.next())["chat"]
    assert len(chat) == 2 and "haven't seen anything yet" in chat[1]["content"]
    memory = app.memory
    app.clear_conversation()
    assert _values(feed.next())["chat"] == [] and app.memory is memory
    app.forget()
    assert app.memory is not memory and app.mode == "idle" and app.entries() == ()
    assert "Upload a video" in app.status().text
    app.close()


def test_retry_of_a_cancelled_item_asks_for_it_afresh(tmp_path):
    apps: list[AppSession] = []

    def press(action: str):  # the work panel's button, pressed while the talk goes on
        def step(chunk, view):
            getattr(apps[0], action)("tab-1/w1")
            return FakeFrontend().default
        return step

    options = AppOptions(root=tmp_path / "sessions", max_chunks=12, drain_s=30.0)
    app = AppSession("tab-1", options, clock=SimulatedClock,
                     frontend_factory=lambda m: FakeFrontend({3: press("cancel"),
                                                              6: press("retry")}))
    apps.append(app)
    app.ask("set a timer for 5 minutes")
    app.join()
    states = [(e.event.item_id, e.event.state) for e in app.entries()
              if isinstance(e.event, WorkItemStateChanged)]
    assert ("tab-1/w1", WorkState.CANCELLED) in states
    assert ("tab-1/w2", WorkState.RUNNING) in states  # the same timer, asked for afresh
    rows = {r.item_id: r for r in work_rows(app.entries())}
    assert rows["tab-1/w2"].label == rows["tab-1/w1"].label == "Timer for 5 minutes"
    app.close()


class _RecordingMemory:
    """Stands in for the VideoMemory under test of the pool: records chunks; can block."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.chunks: list[int] = []
        self.finished = False
        self.gate = gate
        self.entered = threading.Event()

    def add(self, chunk) -> int:
        self.entered.set()
        if self.gate is not None:
            self.gate.wait()
        self.chunks.append(chunk.index)
        return 1

    def ingest(self, chunks, finish: bool = True) -> dict:
        for chunk in chunks:  # as VideoMemory.ingest: each chunk through add
            self.add(chunk)
        if finish:
            self.finish()
        return {}

    def finish(self) -> int:
        self.finished = True
        return 0


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    from memory.samples import make_lecture

    return Path(make_lecture(0.5, 0, tmp_path_factory.mktemp("clip")).video)


def test_the_pool_runs_at_most_its_workers_and_shows_the_line(clip):
    pool = IngestPool(workers=1)
    gate = threading.Event()
    first, second = _RecordingMemory(gate), _RecordingMemory()
    ticks = iter(range(10_000))
    a = pool.submit(IngestJob(clip, first, 31, lambda: float(next(ticks)), "a.mp4"))
    b = pool.submit(IngestJob(clip, second, 31, lambda: 0.0, "b.mp4"))
    first.entered.wait()
    assert a.progress().state == "running"
    assert b.progress().state == "queued" and b.progress().ahead == 0  # next in line
    gate.set()
    assert a.wait(60) and b.wait(60)
    assert first.chunks == list(range(31)) and first.finished
    assert second.chunks == list(range(31)) and b.progress().state == "done"
    assert a.progress().fraction == 1.0
    pool.shutdown()


def test_cancelling_stops_a_running_ingest_at_the_next_chunk_and_a_queued_one_before_it_starts(
        clip):
    pool = IngestPool(workers=1)
    gate = threading.Event()
    running, waiting = _RecordingMemory(gate), _RecordingMemory()
    a = pool.submit(IngestJob(clip, running, 31, lambda: 0.0))
    b = pool.submit(IngestJob(clip, waiting, 31, lambda: 0.0))
    running.entered.wait()
    b.cancel()
    a.cancel()
    gate.set()
    assert a.wait(60) and b.wait(60)
    assert a.progress().state == "cancelled" and len(running.chunks) == 1
    assert not running.finished and waiting.chunks == [] and b.progress().state == "cancelled"
    pool.shutdown()


@pytest.mark.slow
def test_the_banner_says_what_the_tab_is_doing(tmp_path, clip):
    app = _app(tmp_path)
    assert app.status().kind == "idle"
    gate = threading.Event()
    pool = IngestPool(workers=1)
    blocker = pool.submit(IngestJob(clip, _RecordingMemory(gate), 31, lambda: 0.0))
    app.pool = pool
    app.load_video(clip)  # a real memory, waiting for the one worker
    status = app.status()
    assert status.kind == "queued" and "it is next" in status.text
    gate.set()
    assert blocker.wait(60) and app.wait_ingest(120)
    status = app.status()
    assert status.kind == "ready" and "watched all 0:31 of" in status.text
    assert f"{len(app.keyframes())} key frame" in status.text
    app.close()
    pool.shutdown()


def test_an_abstention_has_no_chips_and_an_answer_cites_its_lead_first():
    from demos.results import answer_citations
    from memory.answering import NOT_SEEN
    from memory.evidence import SAID, SHOWN, Answer, Evidence, Moment

    near = Moment(40.0, 52.0, 0.3, "Roots take up water", keyframe="k40.jpg")
    lead = Evidence(SAID, "Bees carry pollen between flowers.", 61.0, 64.0)
    best = Moment(60.0, 75.0, 0.9, "bees and flowers", keyframe="k60.jpg", evidence=(lead,))
    assert answer_citations(Answer("Who won the world cup?", NOT_SEEN, (near,),
                                   found=False)) == ()
    cited = answer_citations(Answer("How do plants make seeds?", "At 1:01 ...", (best, near),
                                    found=True, evidence=(lead,)))
    assert [(c.start, c.keyframe) for c in cited] == [(61.0, "k60.jpg"), (60.0, "k60.jpg"),
                                                      (40.0, "k40.jpg")]
    # a slide line is timed from when it came on screen, before the moment it was found in
    line = Evidence(SHOWN, "Four bases carry the genetic code", 81.0, 126.0)
    found_in = Moment(107.0, 119.0, 0.9, "DNA", keyframe="k107.jpg", evidence=(line,))
    cited = answer_citations(Answer("What are the four bases?", "At 1:21 ...", (found_in,),
                                    found=True, evidence=(line,)))
    assert (cited[0].start, cited[0].keyframe) == (81.0, "k107.jpg")
