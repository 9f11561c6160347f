"""Time phrases become windows on the media timeline (clipped by the asking time)."""

from __future__ import annotations

import pytest

from memory.timeparse import TimeFilter, clock_seconds, parse_time

NOW = 1800.0  # asked 30 minutes in


@pytest.mark.parametrize(("question", "start", "end"), [
    ("What was on the slide at the start?", 0.0, 180.0),
    ("what did she say at the beginning", 0.0, 180.0),
    ("What did he say five minutes ago?", 1425.0, 1575.0),
    ("what was said 2 minutes ago", 1650.0, 1710.0),
    ("what happened in the last minute?", 1740.0, 1800.0),
    ("summarise the last 10 minutes", None, None),  # no 'in the': not a phrase we claim
    ("what was covered in the last ten minutes", 1200.0, 1800.0),
    ("what was on screen at 12:30?", 720.0, 780.0),
    ("what was said between 1:00 and 2:30", 60.0, 150.0),
    ("anything after 20:00?", 1200.0, None),
    ("what did they say just now", 1740.0, 1800.0),
    ("in the first two minutes what was the topic", 0.0, 120.0),
    ("What is photosynthesis?", None, None),
])
def test_windows(question, start, end):
    f = parse_time(question, now=NOW)
    assert f.start == (pytest.approx(start) if start is not None else None)
    assert f.end == (pytest.approx(end) if end is not None else None)


def test_query_keeps_the_rest_of_the_question():
    f = parse_time("What did he say five minutes ago about entropy?", now=NOW)
    assert f.query == "What did he say about entropy?"
    assert f.phrase == "five minutes ago"


def test_topic_anchor():
    f = parse_time("What came after the slide about photosynthesis?", now=NOW)
    assert f.after_topic == "photosynthesis" and f.start is None
    g = parse_time("what was said before the part on cell division, briefly", now=NOW)
    assert g.before_topic == "cell division"


def test_relative_phrases_need_a_time_and_windows_clip_to_now():
    assert parse_time("what happened five minutes ago?").is_empty
    assert parse_time("what was at 12:30?").start == 720.0
    early = parse_time("what was said 10 minutes ago", now=120.0)
    assert early.start == 0.0 and early.end == 0.0
    assert parse_time("at 45:00", now=NOW).end == NOW


def test_order_hints():
    assert parse_time("what was on the slide at the start?", now=NOW).order == "earliest"
    assert parse_time("what did she say just now?", now=NOW).order == "latest"
    assert parse_time("What did the speaker just say?", now=NOW).order == "latest"
    assert parse_time("what was just shown on the screen", now=NOW).order == "latest"
    assert parse_time("What did we just hear?", now=NOW).order == "latest"
    assert parse_time("what did I just see", now=NOW).order == "latest"
    assert parse_time("what was said at 12:30?", now=NOW).order is None


def test_the_first_and_the_last_slide_are_times():
    first = parse_time("What was on the first slide?", now=NOW)
    assert (first.start, first.end, first.order) == (0.0, 180.0, "earliest")
    assert first.phrase == "the first slide" and first.query == "What was on ?"
    last = parse_time("What did the last slide show?", now=NOW)
    assert (last.start, last.end, last.order) == (1620.0, 1800.0, "latest")
    assert parse_time("what was on the very first screen", now=NOW).order == "earliest"
    assert parse_time("What was on the last slide?").is_empty  # "last" needs the asking time
    assert parse_time("What is the first law of motion?", now=NOW).is_empty  # not a time


def test_a_named_instant_is_kept_even_after_the_asking_time():
    assert parse_time("What was said at 0:09?", now=NOW).point == 9.0
    assert parse_time("what was on the slide at 1:30", now=NOW).point == 90.0
    assert parse_time("what happened at minute five?", now=NOW).point == 300.0
    assert parse_time("at 45:00", now=NOW).point == 2700.0  # later than now: not seen yet
    assert parse_time("what was said between 1:00 and 2:30", now=NOW).point is None


def test_clock_seconds():
    assert clock_seconds("12:30") == 750.0
    assert clock_seconds("1:02:03") == 3723.0
    assert TimeFilter().is_empty
