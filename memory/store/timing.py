"""Busy time per ingest stage: wall seconds and CPU seconds, from any thread.

`StageTimes` is the mapping ``stage -> wall seconds`` a memory reports as
``stage_seconds`` (decode, keyframes, vad, asr, ocr, embed, ...), with the CPU seconds
of the same calls in ``cpu``. Stages run on several threads at once, so the CPU clock is
chosen by how they run: ``time.thread_time`` (the calling thread only: exact for models
that compute on the caller, such as onnxruntime and CTranslate2 with one thread, and a
lower bound for libraries with their own pools) while stages overlap, and
``time.process_time`` (every thread of the process) when they run one after another on
one thread, where it is exact for every stage. Tests never read these numbers as
pass/fail; ``venus bench ingest`` prints them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["StageTimes"]


class StageTimes(dict):
    """``{stage: wall seconds}`` plus ``cpu`` (``{stage: CPU seconds}``), ``calls`` and
    ``counts`` (events a stage reports, such as the pixels OCR read)."""

    def __init__(self, cpu_clock: Callable[[], float] = time.thread_time) -> None:
        super().__init__()
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.cpu_clock = cpu_clock
        self._lock = threading.Lock()

    @contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        """Count the time the body takes as ``stage`` (also when it raises)."""
        w0, c0 = time.perf_counter(), self.cpu_clock()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - w0, self.cpu_clock() - c0)

    def add(self, stage: str, wall: float, cpu: float = 0.0) -> None:
        with self._lock:
            self[stage] = self.get(stage, 0.0) + wall
            self.cpu[stage] = self.cpu.get(stage, 0.0) + cpu
            self.calls[stage] = self.calls.get(stage, 0) + 1

    def count(self, event: str, n: int = 1) -> None:
        with self._lock:
            self.counts[event] = self.counts.get(event, 0) + n
