""""Never mind" cancels the newest request, even one whose result waits to be spoken."""

from __future__ import annotations

from venus.events import DeliveryPolicy, Verdict, WorkResult, WorkState
from venus.frontend.base import ResultOffer, SessionView, WorkItemView
from venus.frontend.embedded import _newest_open_item


def _view(work=(), results=()) -> SessionView:
    return SessionView("s", 10.0, 10, False, (), tuple(work), tuple(results), (), ())


def _offer(item_id: str) -> ResultOffer:
    return ResultOffer(item_id, "summarize_range", WorkResult(True, "a summary"),
                       Verdict.DELIVER, DeliveryPolicy.WHEN_FLOOR_FREE, "a summary")


def test_a_running_item_is_the_target():
    work = [WorkItemView("w1", "make_quiz", WorkState.RUNNING, {}, 2.0),
            WorkItemView("w2", "set_timer", WorkState.QUEUED, {}, 5.0)]
    assert _newest_open_item(_view(work, [_offer("r1")])) == "w2"


def test_a_finished_result_not_yet_spoken_is_cancelled_rather_than_said():
    assert _newest_open_item(_view(results=[_offer("r1"), _offer("r2")])) == "r2"


def test_nothing_open_means_nothing_to_cancel():
    assert _newest_open_item(_view()) is None
