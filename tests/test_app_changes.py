"""The page stream sleeps until something it shows changed: `demos.changes` on real
`AppSession`s and conversation loops in simulated time (venus.testing fakes), and the
Gradio queue's idle poll slowed."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace

from demos.changes import Changes, TimelineWakes
from demos.state import AppOptions, AppSession
from demos.views import ConversationStrip
from venus import SimulatedClock
from venus.testing import FakeFrontend


def _app(tmp_path: Path, chunks: int, name: str = "tab-1") -> AppSession:
    options = AppOptions(root=tmp_path / name, max_chunks=chunks, drain_s=30.0,
                         words_per_second=5.0, samples_dir=tmp_path / "samples")
    return AppSession(name, options, frontend_factory=lambda m: FakeFrontend(),
                      clock=SimulatedClock)


def test_idle_seconds_announce_nothing_and_a_question_does(tmp_path):
    counts = []
    for chunks in (12, 40):  # 28 more idle seconds
        app = _app(tmp_path, chunks, f"idle-{chunks}")
        app.start()
        app.join()
        assert app.timeline_length() > 2 * chunks  # the loop did run every second
        counts.append(app.changes.count)
        app.close()
    assert counts[0] == counts[1]
    app = _app(tmp_path, 12, "asked")
    before = app.changes.count
    app.ask("set a timer for 30 seconds")
    app.join()
    assert app.changes.count > counts[0] and app.changes.count > before
    app.close()


def test_the_conversation_strip_never_changes_unannounced(tmp_path):
    """Replayed entry by entry: whenever the strip's HTML changes, a change was announced
    since it was last drawn (a question, its spoken reply, the seconds after it)."""
    app = _app(tmp_path, 30)
    app.ask("set a timer for 30 seconds")
    app.ask("What is the pH scale?")
    app.join()
    changes = Changes()
    wakes, strip = TimelineWakes(changes), ConversationStrip()
    drawn, seen, redrawn = strip.html(), changes.count, 0
    for entry in app.entries():
        wakes(entry)
        html = strip.feed([entry]).html()
        if html != drawn:
            assert changes.count != seen, f"strip changed at {entry.event!r} unannounced"
            drawn, seen, redrawn = html, changes.count, redrawn + 1
    assert redrawn >= 3
    app.close()


def test_clearing_forgetting_and_refusing_are_announced(tmp_path):
    app = _app(tmp_path, 3)
    for action in (app.clear_conversation, app.forget, lambda: app.refuse("Upload refused")):
        before = app.changes.count
        action()
        assert app.changes.count > before
    app.close()


def test_a_waiter_wakes_on_a_change_from_another_thread():
    async def scenario() -> tuple[int, int, int]:
        changes = Changes()
        assert await changes.wait(-1) == 0  # already moved on: at once
        assert await changes.wait(0, timeout=0) == 0  # nothing changed: back after timeout
        waiter = asyncio.create_task(changes.wait(0))  # no timeout: only a change wakes it
        await asyncio.sleep(0)  # let it start waiting
        assert not waiter.done()
        await asyncio.get_running_loop().run_in_executor(None, changes.notify)
        woke = await waiter
        return woke, changes.count, len(changes._waiters)

    assert asyncio.run(scenario()) == (1, 1, 0)


def test_the_gradio_queue_polls_slowly_when_it_has_nothing_to_do(caplog):
    """On Gradio's own queue attributes (a real launch is checked by the browser test)."""
    from demos.ui import QUEUE_IDLE_POLL_S, quiet_queue

    demo = SimpleNamespace(_queue=SimpleNamespace(sleep_when_free=0.001,
                                                  progress_update_sleep_when_free=0.01))
    assert quiet_queue(demo)
    assert demo._queue.sleep_when_free == QUEUE_IDLE_POLL_S
    assert demo._queue.progress_update_sleep_when_free == 10 * QUEUE_IDLE_POLL_S
    with caplog.at_level(logging.WARNING):
        assert not quiet_queue(SimpleNamespace())  # no queue: says so, changes nothing
    assert "idle poll could not be slowed" in caplog.text
