"""Run a ``venus bench`` benchmark from a notebook and get its figures back as a dict.

Behaviour layer of `venus.notebook`. The benchmark runs as the command line runs it
(``python -m venus bench NAME ... --json PATH``) in a child process, so each run's
peak RAM is its own and a notebook kernel does not keep the models of every run; its
table and progress stream into the cell as it goes. The figures are the JSON the
benchmark writes (stable keys: see BENCHMARKS.md), machine and versions included.
"""

from __future__ import annotations

import codecs
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from venus.errors import VenusError

__all__ = ["BenchmarkFailed", "bench_command", "run_benchmark"]


class BenchmarkFailed(VenusError):
    """A benchmark run exited with an error: its one-sentence reason when the command
    gave one (a full disk, a bad flag), else its output above says why."""


def bench_command(name: str, options: Mapping[str, Any], json_path: str | Path) -> list[str]:
    """The command line for ``venus bench name`` with ``options`` as ``--flag value``
    (underscores become dashes; ``True`` is a bare flag, ``False``/``None`` are left out)."""
    cmd = [sys.executable, "-m", "venus", "bench", name]
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            cmd.append(flag)
        elif isinstance(value, (list, tuple)):
            cmd += [flag, ",".join(str(v) for v in value)]
        else:
            cmd += [flag, str(value)]
    return cmd + ["--json", str(json_path)]


def run_benchmark(name: str, options: Mapping[str, Any] | None = None, *,
                  json_path: str | Path | None = None, stream: TextIO | None = None,
                  cwd: str | Path | None = None) -> dict[str, Any]:
    """Run ``venus bench name`` with ``options`` and return its JSON figures.

    Output (table, progress, summary) is copied to ``stream`` (default: stdout) as it
    comes; a failing run raises `BenchmarkFailed`.
    """
    stream = stream or sys.stdout
    with tempfile.TemporaryDirectory(prefix="venus-bench-") as tmp:
        target = Path(json_path) if json_path is not None else Path(tmp) / f"{name}.json"
        cmd = bench_command(name, options or {}, target)
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=cwd) as proc:
            assert proc.stdout is not None
            # Bytes, not lines: progress bars redraw with a bare \r, which a notebook
            # renders in place and universal newlines would turn into a line each.
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            tail = ""
            for block in iter(lambda: proc.stdout.read1(4096), b""):
                text = decoder.decode(block)
                stream.write(text)
                stream.flush()
                tail = (tail + text)[-4096:]
        if proc.returncode != 0:
            reason = _error_sentence(tail)
            raise BenchmarkFailed(f"'venus bench {name}' exited with status {proc.returncode}"
                                  + (f": {reason}" if reason else "; its output above says why"))
        return json.loads(target.read_text())


def _error_sentence(output: str) -> str | None:
    """The command's own one-line reason (``venus...: error: SENTENCE``), if it gave one."""
    found = re.findall(r"^venus[\w ]*: error: (.+)$", output, flags=re.MULTILINE)
    return found[-1].strip() if found else None
