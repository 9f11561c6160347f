"""The shared causal timeline: an append-only log of `venus.events` for one session.

Sits just above `venus.events`. Everything that happens in a session (chunks, control
tokens, speech, delegation, work-item states, errors) is recorded here in order; the
frontend sees a read-only view of it and the harness reads it back to recover work
items after a restart. With a ``path`` every entry is written as one JSON line and
flushed as it happens, so a crash loses at most the line being written; `Timeline.load`
restores a file (dropping a torn last line) and keeps appending to it.

Line format: ``{"session_id", "seq", "time", "type", "event": {...}}``; ``type`` is the
event class name (`venus.events.EVENT_TYPES`). (De)serialisation goes through pydantic,
since a timeline file is an I/O boundary. No wall-clock time is stored, so a simulated
session writes a byte-identical file every run.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from memory.errors import StoreWriteError
from venus.errors import TimelineFormatError
from venus.events import EVENT_TYPES, Event

__all__ = ["Timeline", "TimelineEntry"]

logger = logging.getLogger(__name__)
E = TypeVar("E", bound=Event)


class Timeline:
    """Append-only, ordered events of one session; optionally persisted as JSONL.

    ``now`` returns the session time stamped on each entry (the session passes its
    clock); `record` may also be given an explicit ``time``. Times never go backwards.
    """

    def __init__(self, session_id: str, path: str | os.PathLike | None = None, *,
                 now: Callable[[], float] | None = None, fsync: bool = False) -> None:
        self.session_id = session_id
        self.path = Path(path) if path is not None else None
        self._now = now
        self._fsync = fsync
        self._entries: list[TimelineEntry] = []
        self._file: IO[str] | None = None
        self.write_fault: StoreWriteError | None = None  # the file stopped: disk full
        self._listeners: list[Callable[[TimelineEntry], None]] = []

    # -- writing -------------------------------------------------------------------

    def bind_clock(self, now: Callable[[], float]) -> None:
        """Stamp future entries with ``now()`` (a session binds its clock here)."""
        self._now = now

    def now(self) -> float:
        """The session time the next entry would get (the bound clock, never going back)."""
        return max(self._now(), self.last_time) if self._now else self.last_time

    def record(self, event: Event, time: float | None = None) -> TimelineEntry:
        """Append ``event`` at ``time`` (default: the bound clock) and persist it."""
        if time is None:
            if self._now is None:
                raise ValueError("Timeline.record needs a time: pass time= or bind a clock")
            time = self._now()
        time = max(float(time), self.last_time)  # causal order even across clocks
        entry = TimelineEntry(self.session_id, len(self._entries), time, event)
        self._entries.append(entry)
        if self.path is not None and self.write_fault is None:
            self._write(entry)
        for listener in self._listeners:
            listener(entry)
        return entry

    def subscribe(self, listener: Callable[[TimelineEntry], None]) -> None:
        """Call ``listener(entry)`` after each new entry (UIs, the harness, tests)."""
        self._listeners.append(listener)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _write(self, entry: TimelineEntry) -> None:
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")
            self._file.write(entry.to_json() + "\n")
            self._file.flush()
            if self._fsync:
                os.fsync(self._file.fileno())
        except OSError as exc:
            self._stop_writing(exc)

    def _stop_writing(self, exc: OSError) -> None:
        """A full or read-only disk stops the file, not the session: the entries go on in
        memory (what the conversation reads) and ``write_fault`` says why the file ends
        early; any other error is ours and is raised."""
        from memory.store.faults import as_store_fault

        fault = as_store_fault(exc, self.path.parent, "output directory")
        if fault is None:
            raise exc
        self.write_fault = fault.retold(resume="")  # nothing resumes a timeline file
        self.write_fault.__cause__ = exc
        logger.info("%s (the timeline file %s stops here; the session goes on)",
                    self.write_fault, self.path)
        try:
            self.close()
        except OSError:
            self._file = None

    # -- reading -------------------------------------------------------------------

    @property
    def entries(self) -> tuple[TimelineEntry, ...]:
        return tuple(self._entries)

    @property
    def last_time(self) -> float:
        return self._entries[-1].time if self._entries else 0.0

    @property
    def next_seq(self) -> int:
        return len(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[TimelineEntry]:
        return iter(tuple(self._entries))

    def since(self, seq: int) -> tuple[TimelineEntry, ...]:
        """Entries with sequence number >= ``seq``."""
        return tuple(self._entries[max(0, seq):])

    def events(self, kind: type[E]) -> list[E]:
        """All events of one class, in order."""
        return [e.event for e in self._entries if isinstance(e.event, kind)]

    def last(self, kind: type[E]) -> E | None:
        for entry in reversed(self._entries):
            if isinstance(entry.event, kind):
                return entry.event
        return None

    # -- persistence ---------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike, *, fsync: bool = False) -> Timeline:
        """Read a JSONL timeline; further `record` calls append to the same file.

        A torn last line (the process died mid-write) is dropped and cut from the file;
        any other unreadable line raises `TimelineFormatError`.
        """
        path = Path(path)
        if not path.is_file():
            raise TimelineFormatError(f"no timeline file at {path}; check the path")
        raw = path.read_bytes()
        entries, good_bytes = _parse(raw, path)
        if good_bytes < len(raw):
            logger.warning("dropping a torn last line of %s (%d bytes)", path,
                           len(raw) - good_bytes)
            with open(path, "r+b") as fh:
                fh.truncate(good_bytes)
        if not entries:
            raise TimelineFormatError(f"{path} holds no timeline entries")
        timeline = cls(entries[0].session_id, path, fsync=fsync)
        timeline._entries = entries
        return timeline


@dataclass(frozen=True)
class TimelineEntry:
    """One event on the timeline with its session, sequence number and session time."""

    session_id: str
    seq: int
    time: float
    event: Event

    def to_json(self) -> str:
        name = type(self.event).__name__
        payload = _adapter(name).dump_python(self.event, mode="json")
        return json.dumps({"session_id": self.session_id, "seq": self.seq, "time": self.time,
                           "type": name, "event": payload}, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> TimelineEntry:
        doc: dict[str, Any] = json.loads(line)
        event = _adapter(doc["type"]).validate_python(doc["event"])
        return cls(str(doc["session_id"]), int(doc["seq"]), float(doc["time"]), event)


@cache
def _adapter(name: str) -> TypeAdapter:
    return TypeAdapter(EVENT_TYPES[name])


def _parse(raw: bytes, path: Path) -> tuple[list[TimelineEntry], int]:
    entries: list[TimelineEntry] = []
    offset = 0
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, start=1):
        is_last = number == len(lines)
        if line.strip():
            try:
                entries.append(TimelineEntry.from_json(line.decode("utf-8")))
            except (ValueError, KeyError, ValidationError) as exc:
                if is_last:  # torn write: no newline made it to disk
                    return entries, offset
                raise TimelineFormatError(
                    f"{path}:{number} is not a timeline entry ({exc.__class__.__name__}); "
                    f"the file is corrupt or from another program"
                ) from None
        offset += len(line) + (0 if is_last else 1)
    return entries, offset
