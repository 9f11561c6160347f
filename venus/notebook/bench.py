"""Run a ``venus bench`` benchmark from a notebook and get its figures back as a dict.

Behaviour layer of `venus.notebook`. The benchmark runs as the command line runs it
(``python -m venus bench NAME ... --json PATH``) in a child process, so each run's
peak RAM is its own and a notebook kernel does not keep the models of every run; its
table and summary stream into the cell as they come. Its progress bars (one per stage,
each redrawn many times a second) become one updating ``tqdm.auto`` bar whose label
names the stage, so a saved notebook holds one bar, not hundreds of redrawn lines. The
figures are the JSON the benchmark writes (stable keys: see BENCHMARKS.md), machine and
versions included.
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


# a tqdm line: "ingest: 5s [00:00, 39.81s/s]", "render:  40%|####  | 24/60 [00:03<00:05, ...]"
_BAR = re.compile(r"^\s*(?P<desc>[^:\[\]|]{1,60}): +(?:\d+%\|[^|]*\| *)?(?P<n>\d+(?:\.\d+)?)"
                  r"(?P<unit>[^\s/\[\d]*)(?:/(?P<total>\d+(?:\.\d+)?)\S*)? *\[")


class _OneBar:
    """A text stream that shows the progress lines written to it as one bar and passes
    every other line on to ``out``. ``bar`` is made on the first progress line
    (``make_bar(desc, total, unit)`` -> a tqdm-like object), then moved and relabelled."""

    def __init__(self, out: TextIO, make_bar: Any) -> None:
        self.out, self.make_bar, self.bar, self.pending = out, make_bar, None, ""
        self.stage: tuple[str, float | None] | None = None

    def write(self, text: str) -> None:
        self.pending += text
        *done, self.pending = re.split(r"(?<=[\r\n])", self.pending)
        for piece in done:
            self._line(piece)

    def _line(self, piece: str) -> None:
        found = _BAR.match(piece.rstrip("\r\n"))
        if found is None:
            if piece.strip():
                self.out.write(piece if piece.endswith("\n") else piece.rstrip("\r") + "\n")
                self.out.flush()
            return
        desc, total = found["desc"].strip(), found["total"] and float(found["total"])
        if self.bar is None:
            self.bar = self.make_bar(desc, total, found["unit"] or "it")
        if self.stage != (desc, total):
            self.bar.reset(total=total)
            self.bar.set_description(desc, refresh=False)
            self.bar.unit = found["unit"] or "it"
            self.stage = (desc, total)
        self.bar.n = float(found["n"])
        self.bar.refresh()

    def flush(self) -> None:
        self.out.flush()

    def close(self) -> None:
        if self.pending:
            self._line(self.pending + "\n")
            self.pending = ""
        if self.bar is not None:
            self.bar.close()


def _tqdm_bar(desc: str, total: float | None, unit: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit)


def run_benchmark(name: str, options: Mapping[str, Any] | None = None, *,
                  json_path: str | Path | None = None, stream: TextIO | None = None,
                  cwd: str | Path | None = None, one_bar: bool = True) -> dict[str, Any]:
    """Run ``venus bench name`` with ``options`` and return its JSON figures.

    Output (table, summary) is copied to ``stream`` (default: stdout) as it comes, its
    progress bars as one ``tqdm.auto`` bar (``one_bar=False``: as the command drew them);
    a failing run raises `BenchmarkFailed`.
    """
    out = stream or sys.stdout
    stream = _OneBar(out, _tqdm_bar) if one_bar else out
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
        if isinstance(stream, _OneBar):
            stream.close()
        if proc.returncode != 0:
            reason = _error_sentence(tail)
            raise BenchmarkFailed(f"'venus bench {name}' exited with status {proc.returncode}"
                                  + (f": {reason}" if reason else "; its output above says why"))
        return json.loads(target.read_text())


def _error_sentence(output: str) -> str | None:
    """The command's own one-line reason (``venus...: error: SENTENCE``), if it gave one."""
    found = re.findall(r"^venus[\w ]*: error: (.+)$", output, flags=re.MULTILINE)
    return found[-1].strip() if found else None
