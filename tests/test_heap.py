"""`memory._heap`: importing `memory` keeps freed C-heap memory for reuse (glibc), unless
``REALTIME_VENUS_MALLOC=system`` says to leave the allocator alone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

_PROBE = "import memory, memory._heap as h; print(h.applied)"


def _applied(**env: str) -> str:
    run = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env},
                         check=True)
    return run.stdout.strip()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the setting is glibc's")
def test_importing_memory_keeps_freed_memory_unless_told_to_leave_malloc_alone():
    assert _applied(REALTIME_VENUS_MALLOC="") == "True"
    assert _applied(REALTIME_VENUS_MALLOC="system") == "False"
