"""The C heap keeps the memory it frees, so the models' large buffers are reused.

Whisper (CTranslate2) allocates and frees its encoder's buffers on every call: batched
self-attention alone is ~430 MB for 8 windows. glibc hands blocks that large to ``mmap``
and returns them on ``free``, so every call faults fresh zeroed pages in again: ~1.3
million page faults for 225 s of speech, a third of Whisper's CPU time spent in the
kernel (measured: 9.6 s wall, 11.1 s user + 4.7 s system CPU for 9 windows; with the
heap kept, 7.5 s wall, 11.0 + 0.9 s). In the whole ingest (first 20 minutes of the
bench haystack, quiet machine) the process's system CPU fell from 18.4 s to 3.7 s and
the ingest went from 21.7x to 26.6x real time. The whole `venus bench memory --minutes 60`,
run back to back with the code before this setting and the growing batches of
`memory.store.speech` (quiet machine): 110.0 s (34.2x) and 49.0 s system CPU before,
91.7 s (40.9x) and 7.4 s after.

So on glibc, `keep_freed_memory` (called once when `memory` is imported, before other
threads exist) puts every thread on the main heap (``M_ARENA_MAX`` 1: a thread's own
arena cannot hold a block over 64 MB and would ``mmap`` it anyway), never uses ``mmap``
for a block (``M_MMAP_MAX`` 0) and never gives the heap's free top back
(``M_TRIM_THRESHOLD``), so a freed block is there for the next call. The cost is resident
memory: it stays near its peak instead of falling between calls, and it rises in steps
while the one heap settles around the models' buffers (first 40 minutes of the haystack:
750 MB after loading, 1.31 GB at 10 minutes, 1.56 GB at 20, 1.73 GB from 30 minutes on,
flat to 40), so `venus bench memory --minutes 60` reads a positive RSS slope (+426 MB/h
fitted over minutes 12-60, peak 1.86 GB). ``REALTIME_VENUS_MALLOC=system`` leaves the
allocator as it is; elsewhere than glibc nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_MAX, _M_ARENA_MAX = -1, -2, -4, -8
_SETTINGS = ((_M_ARENA_MAX, 1), (_M_MMAP_MAX, 0), (_M_TRIM_THRESHOLD, 2**31 - 1),
             (_M_TOP_PAD, 64 << 20))

applied = False
"""Whether `keep_freed_memory` changed the allocator in this process."""


def keep_freed_memory() -> bool:
    """Apply the settings above once (glibc only); True when they are in force."""
    global applied
    if applied or os.environ.get("REALTIME_VENUS_MALLOC", "").lower() == "system":
        return applied
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - glibc only (musl has no such symbol)
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    applied = all(mallopt(option, value) == 1 for option, value in _SETTINGS)
    return applied
