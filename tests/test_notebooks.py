"""The teaching notebooks: committed without outputs, each read as a lesson, and each runs
top to bottom with its results checked by its own asserts (a broken story fails here).

Each notebook is executed headless with nbclient on this interpreter's kernel, with its
"parameters" cell followed by the small sizes below (as papermill would inject them), so
each stays within a few minutes here; any cell error fails the test, and a cell that gets
no reply within `CELL_TIMEOUT_S` fails it with the notebook and the cell named.

Why the client polls in slices (`_sliced`): notebook 03 "hung" headless under load (issue
29). The kernel had finished every cell and was idle, no thread of ours was left in it,
and the client (nbclient, as ``jupyter nbconvert --execute`` runs it) sat in
``shell_channel.get_msg`` with the last cell's execute_reply already queued on its zmq
socket (``socket.get(zmq.EVENTS)`` said POLLIN): the asyncio poll had missed the socket's
wake-up. Reading the socket's events, which a second poll does, delivered the reply at
once. It stalled at the end of 3 of 3 plain runs beside two CPU-bound processes (each
until poked, 2-5 min) and 0 of 2 sliced runs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))

# Small sizes for the test run; each notebook's own defaults are what a person runs.
SMALL = {
    "01_quickstart": {"MINUTES": 1.0},
    "02_probe_hour_long_memory": {"MINUTES": 0.5, "DEPTHS": "0,0.5,1", "SCALING_MINUTES": [],
                                  "SYNTHETIC_HOURS": 1.0, "LIBRARY_MINUTES": 0.5},
    "03_full_duplex_interruptions": {"KINDS": ["interruption", "backchannel"]},
    "04_background_delegation": {"PACE_S": 0.0},
    "05_bring_your_own_model": {"SECONDS": 4},
}


def test_every_notebook_has_small_parameters():
    assert ALL and {p.stem for p in ALL} <= set(SMALL)


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name} cell {i} has outputs: clear them"
            assert cell.execution_count is None, f"{path.name} cell {i} has an execution count"
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs exactly one cell tagged 'parameters'"


LESSON = ("**What you will learn**", "**What you need**", "**How long**",
          "](attachment:pipeline.svg)", "## Try it", "## Glossary")
# words for the people who build the toolkit, not for a class
DEVELOPER_ONLY = ("test suite", "the tests run", "issue 2", "issue 3", "repr(")


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_each_notebook_reads_as_a_lesson(path):
    """Goals, needs, time and a pipeline picture first; try-it exercises with expected
    outcomes and a glossary at the end; short cells; results checked (issue 30)."""
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for part in LESSON:
        assert part in text, f"{path.name} lacks {part!r}"
    first = nb.cells[0]
    assert "image/svg+xml" in first.get("attachments", {}).get("pipeline.svg", {}), \
        f"{path.name}: the pipeline picture is not attached (python scripts/notebook_figures.py --embed)"
    tries = text[text.index("## Try it"):].split("## Glossary")[0]
    exercises = re.findall(r"^\d\. ", tries, flags=re.MULTILINE)
    assert 2 <= len(exercises) <= 3 and tries.count("Expected") >= len(exercises), \
        f"{path.name}: 2-3 try-it exercises, each with its expected outcome"
    assert not [w for w in DEVELOPER_ONLY if w in text.lower()], f"{path.name}: developer-only text"
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    long = [c.splitlines()[0] for c in code if len(c.splitlines()) > 25]
    assert not long, f"{path.name}: cells over 25 lines (one job per cell): {long}"
    assert sum(c.count("assert ") for c in code) >= 2, f"{path.name}: results are not checked"


def _inject(nb, values: dict, workdir: Path) -> None:
    """Insert an assignment cell right after the parameters cell (papermill's way)."""
    lines = [f"{name} = {value!r}" for name, value in values.items()]
    lines.append(f"WORKDIR = {str(workdir)!r}")
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell("\n".join(lines)))


def _venv_kernel(where: Path, monkeypatch) -> str:
    """A kernelspec on this interpreter (the venv's), found first whatever else is installed."""
    import json

    spec = where / "jupyter" / "kernels" / "venus-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "venus test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(where / "jupyter"))
    return "venus-test"


def _sliced(get_msg, slice_s: float = 2.0):
    """``get_msg(timeout)`` as a series of short waits up to the same deadline.

    A waiting poll on the client's asyncio zmq socket sometimes misses the wake-up of a
    message that has arrived and returns it only when its timeout ends (the class of
    edge-triggered-FD misses in pyzmq #1558 / #2173): in CI a 25 s notebook then took
    900 s + 23 s, cell timeout and all, and passed. Short waits bound such a miss to
    ``slice_s``; the deadline, and Empty at it, are unchanged.
    """
    from queue import Empty
    from time import monotonic

    async def sliced(timeout: float | None = None):
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            left = slice_s if deadline is None else max(0.0, deadline - monotonic())
            try:
                return await get_msg(timeout=min(slice_s, left))
            except Empty:
                if deadline is not None and monotonic() >= deadline:
                    raise

    return sliced


def _client(nb, **kwargs):
    from nbclient import NotebookClient

    class Client(NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            for channel in (kc.shell_channel, kc.iopub_channel):
                channel.get_msg = _sliced(channel.get_msg)
            return kc

    return Client(nb, **kwargs)


# A hung cell fails after this long, named; a loaded shared machine runs 5-10x slower than
# a quiet one, and the slowest cell (notebook 02's benchmark) takes about a minute there.
CELL_TIMEOUT_S = 900


def _execute(client, name: str) -> None:
    """``client.execute()``; a cell with no reply in time fails naming it (the notebook,
    its number among the code cells counted from 1, and its first line)."""
    from nbclient.exceptions import CellTimeoutError

    running: dict = {}

    def started(cell, cell_index):
        running.update(cell=cell, index=cell_index)

    client.on_cell_start = started
    try:
        client.execute()  # raises CellExecutionError on the first failing cell
    except CellTimeoutError:
        cell = running["cell"]
        number = [c for c in client.nb.cells if c.cell_type == "code"].index(cell) + 1
        first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        pytest.fail(f"{name}: code cell {number} ({first!r}) got no reply within "
                    f"{client.timeout} s: a hang", pytrace=False)


@pytest.mark.slow
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    _inject(nb, SMALL[path.stem], tmp_path / "work")
    client = _client(nb, timeout=CELL_TIMEOUT_S, kernel_name=_venv_kernel(tmp_path, monkeypatch),
                     resources={"metadata": {"path": str(tmp_path)}})
    _execute(client, path.name)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors


def test_sliced_wait_keeps_waiting_and_its_deadline():
    import asyncio
    from queue import Empty

    calls = []

    async def get_msg(timeout=None):  # a socket whose message shows only on the third poll
        calls.append(timeout)
        if len(calls) < 3:
            raise Empty
        return {"msg": "reply"}

    assert asyncio.run(_sliced(get_msg, slice_s=2.0)(timeout=None)) == {"msg": "reply"}
    assert calls == [2.0, 2.0, 2.0]

    async def never(timeout=None):
        calls.append(timeout)
        raise Empty

    calls.clear()
    with pytest.raises(Empty):
        asyncio.run(_sliced(never)(timeout=0))
    assert calls == [0.0]


def test_a_hung_cell_fails_with_the_notebook_and_the_cell_named(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("the next cell never returns"),
        nbformat.v4.new_code_cell("import threading\nthreading.Event().wait()  # hangs")])
    client = _client(nb, timeout=3, kernel_name=_venv_kernel(tmp_path, monkeypatch),
                     resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(pytest.fail.Exception,
                       match=r"^hang.ipynb: code cell 2 \('import threading'\) got no reply "
                             r"within 3 s: a hang$"):
        _execute(client, "hang.ipynb")
