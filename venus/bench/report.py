"""How every benchmark reports: a readable table, a one-line summary, optional JSON.

The JSON always carries ``machine`` (cores, RAM, CPU model, GPU), ``versions`` and
``seed`` beside the benchmark's own stable keys, so figures compare across machines.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["BenchReport", "emit", "machine_info", "peak_rss_mb", "percentile", "versions"]


@dataclass
class BenchReport:
    """What a benchmark measured: a table (header + rows), a summary line, the figures."""

    name: str
    header: list[str]
    rows: list[list[Any]]
    summary: str
    figures: dict[str, Any] = field(default_factory=dict)


def percentile(values, q: float) -> float:
    """The q-th percentile (0-100) of ``values``, nearest-rank on sorted data; NaN if empty."""
    import numpy as np

    arr = np.asarray(list(values), dtype=float)
    return float(np.percentile(arr, q)) if arr.size else float("nan")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB, on any system.

    Linux: VmHWM from /proc (unlike ``ru_maxrss`` it is this process's own, also in a
    spawned child). Other POSIX: ``resource.ru_maxrss`` (KiB on Linux/BSD, bytes on
    macOS). Windows has no ``resource`` module: psutil's ``peak_wset`` when psutil is
    installed, else NaN. Imported here, never at module level, so ``venus --help`` runs
    everywhere.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return _psutil_peak_mb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024.0


def _psutil_peak_mb() -> float:
    try:
        import psutil
    except ImportError:
        return float("nan")
    info = psutil.Process().memory_info()
    return float(getattr(info, "peak_wset", info.rss)) / 2**20


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "ram_gb": _ram_gb(),
        "cpu": _cpu_model(),
        "platform": platform.platform(),
        "gpu": None,
    }
    try:
        import torch

        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    except Exception:  # torch missing or broken: no GPU to report
        pass
    return info


def _ram_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows)
        try:
            import psutil
        except ImportError:
            return None
        return round(psutil.virtual_memory().total / 2**30, 1)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in ("realtime-venus", "torch", "faiss-cpu", "faiss-gpu-cu12", "av", "decord",
                 "numpy", "transformers", "faster-whisper", "ctranslate2", "onnxruntime",
                 "onnxruntime-gpu"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def format_table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [[_fmt(c) for c in row] for row in [header, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def emit(report: BenchReport, json_path: str | None = None, seed: int = 0) -> dict[str, Any]:
    """Print the table and summary; write JSON when asked. Returns the JSON document."""
    print(format_table(report.header, report.rows))
    print()
    print(report.summary)
    doc = {"benchmark": report.name, **report.figures, "machine": machine_info(),
           "versions": versions(), "seed": seed}
    if json_path:
        Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        Path(json_path).write_text(json.dumps(doc, indent=2, default=str))
    return doc
