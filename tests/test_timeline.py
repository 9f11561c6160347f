"""The causal timeline: ordering, JSONL persistence as it happens, loading and recovery."""

from __future__ import annotations

import json
import os

import pytest

from venus.errors import TimelineFormatError
from venus.events import (
    EVENT_TYPES,
    ChunkReceived,
    Citation,
    ControlToken,
    ControlTokenEmitted,
    DelegationAction,
    DelegationRejected,
    DelegationRequested,
    DeliveryPolicy,
    ErrorCategory,
    ErrorRecorded,
    EvidenceSnapshot,
    FloorAction,
    FloorActionTaken,
    MemoryUpdated,
    OverlapClassified,
    OverlapKind,
    PlaybackAcknowledged,
    ReintegrationDecided,
    ResultDelivered,
    ResultReady,
    SessionEnded,
    SessionStarted,
    SpeechDetected,
    SpeechPlayed,
    SpeechQueued,
    SpeechStopped,
    UserWordsTranscribed,
    Verdict,
    WorkError,
    WorkItemCreated,
    WorkItemStateChanged,
    WorkResult,
    WorkState,
)
from venus.timeline import Timeline

SNAPSHOT = EvidenceSnapshot("s1", 4, 3.0, 7, ("what was on the slide",), (1.0, 2.0))

ONE_OF_EACH = [
    SessionStarted("simulated", "fake"),
    ChunkReceived(0, 0.0, 1.0, True, 1),
    SpeechDetected(0.2, 0.9),
    UserWordsTranscribed("what was on the slide", 0.2, 0.9),
    OverlapClassified(OverlapKind.BACKCHANNEL, "mm-hmm"),
    ControlTokenEmitted(ControlToken.SPEAK, 0),
    FloorActionTaken(FloorAction.YIELD_FLOOR, 0),
    SpeechQueued("u1", "hello", None),
    SpeechPlayed("u1"),
    SpeechStopped("u1", 0.5, "yield_floor"),
    PlaybackAcknowledged("u2", "s1/w1"),
    DelegationRequested("r1", DelegationAction.REQUEST, "search_memory", {"query": "slide", "k": 3}),
    DelegationRejected("r2", ErrorCategory.DUPLICATE, "already running", "s1/w1"),
    WorkItemCreated("s1/w1", "r1", "search_memory", {"query": "slide"}, "abc", SNAPSHOT,
                    DeliveryPolicy.SILENT),
    WorkItemStateChanged("s1/w1", WorkState.RUNNING, WorkState.QUEUED, 1, ""),
    ResultReady("s1/w1", WorkResult(True, "At 0:01: a slide", {"hits": [1, 2]},
                                    (Citation(1.0, 2.0, "kf/1.jpg", "0:01"),))),
    ResultReady("s1/w2", WorkResult(False, "timed out", None, (),
                                    WorkError(ErrorCategory.TIMEOUT, "timed out", True))),
    ReintegrationDecided("s1/w1", Verdict.REVISE, "the conversation moved on"),
    ResultDelivered("s1/w1", "u2"),
    MemoryUpdated(8),
    ErrorRecorded("harness", ErrorCategory.RAISED, "boom", "s1/w2"),
    SessionEnded("source ended", 1),
]


def test_every_event_type_has_a_sample():
    assert {type(e).__name__ for e in ONE_OF_EACH} == set(EVENT_TYPES)


def test_entries_carry_session_seq_and_time():
    now = [0.0]
    timeline = Timeline("s1", now=lambda: now[0])
    for i, event in enumerate(ONE_OF_EACH[:4]):
        now[0] = float(i)
        entry = timeline.record(event)
        assert (entry.session_id, entry.seq, entry.time) == ("s1", i, float(i))
    assert timeline.last(ChunkReceived) == ONE_OF_EACH[1]
    assert timeline.events(SpeechDetected) == [ONE_OF_EACH[2]]
    assert [e.seq for e in timeline.since(2)] == [2, 3]


def test_time_never_goes_backwards():
    timeline = Timeline("s1")
    timeline.record(SessionStarted("simulated", "fake"), time=5.0)
    assert timeline.record(MemoryUpdated(1), time=4.0).time == 5.0


def test_record_without_a_time_or_clock_is_a_bug():
    with pytest.raises(ValueError, match="needs a time"):
        Timeline("s1").record(MemoryUpdated(1))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_stops_the_timeline_file_not_the_session():
    from memory.errors import StoreFullError

    timeline = Timeline("s1", "/dev/full")  # every write there fails with ENOSPC
    timeline.record(SessionStarted("simulated", "fake"), time=0.0)
    timeline.record(MemoryUpdated(1), time=1.0)
    assert len(timeline.entries) == 2  # the conversation reads these: it goes on
    assert isinstance(timeline.write_fault, StoreFullError)
    assert str(timeline.write_fault) == ("The output directory /dev is full: free space "
                                         "there or use a directory on another disk.")


def test_each_event_is_on_disk_as_soon_as_it_is_recorded(tmp_path):
    path = tmp_path / "t.jsonl"
    timeline = Timeline("s1", path)
    for i, event in enumerate(ONE_OF_EACH):
        timeline.record(event, time=float(i))
        lines = path.read_text().splitlines()  # read while the file is still open
        assert len(lines) == i + 1
        doc = json.loads(lines[-1])
        assert (doc["session_id"], doc["seq"], doc["type"]) == ("s1", i, type(event).__name__)
    timeline.close()


def test_load_restores_every_event_exactly(tmp_path):
    path = tmp_path / "t.jsonl"
    timeline = Timeline("s1", path)
    for i, event in enumerate(ONE_OF_EACH):
        timeline.record(event, time=i / 2)
    timeline.close()
    loaded = Timeline.load(path)
    assert loaded.session_id == "s1"
    assert loaded.entries == timeline.entries
    assert loaded.events(ControlTokenEmitted)[0].token is ControlToken.SPEAK


def test_load_then_record_appends_with_the_next_seq(tmp_path):
    path = tmp_path / "t.jsonl"
    timeline = Timeline("s1", path)
    timeline.record(SessionStarted("simulated", "fake"), time=0.0)
    timeline.close()
    loaded = Timeline.load(path)
    loaded.record(MemoryUpdated(3), time=1.0)
    loaded.close()
    assert [e.seq for e in Timeline.load(path)] == [0, 1]


def test_a_torn_last_line_is_dropped_and_cut(tmp_path):
    path = tmp_path / "t.jsonl"
    timeline = Timeline("s1", path)
    for i, event in enumerate(ONE_OF_EACH[:3]):
        timeline.record(event, time=float(i))
    timeline.close()
    good = path.read_bytes()
    path.write_bytes(good + b'{"session_id":"s1","seq":3,"ti')  # the crash
    loaded = Timeline.load(path)
    assert len(loaded) == 3
    assert path.read_bytes() == good
    loaded.record(MemoryUpdated(1), time=9.0)
    loaded.close()
    assert len(Timeline.load(path)) == 4


def test_a_corrupt_line_in_the_middle_is_an_error(tmp_path):
    path = tmp_path / "t.jsonl"
    timeline = Timeline("s1", path)
    for i, event in enumerate(ONE_OF_EACH[:3]):
        timeline.record(event, time=float(i))
    timeline.close()
    lines = path.read_text().splitlines()
    lines[1] = '{"not": "an entry"}'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TimelineFormatError, match=":2 is not a timeline entry"):
        Timeline.load(path)


def test_missing_or_empty_files_are_clear_errors(tmp_path):
    with pytest.raises(TimelineFormatError, match="no timeline file"):
        Timeline.load(tmp_path / "missing.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(TimelineFormatError, match="holds no timeline entries"):
        Timeline.load(tmp_path / "empty.jsonl")


def test_listeners_see_each_entry():
    seen = []
    timeline = Timeline("s1")
    timeline.subscribe(seen.append)
    entry = timeline.record(MemoryUpdated(1), time=0.0)
    assert seen == [entry]
