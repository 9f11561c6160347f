"""The whole evaluation: synthesize, run and score n samples per subset, on a process pool.

Composition on top of `venus.eval` (`synth`, `runner`, `score`). Sample i of every
subset shares one clean question, so one task per index does the clean run, writes the
subsets' folders and runs each input through the system; ``workers`` processes (each
loading the models once) share the indexes. Results are deterministic whatever the
number of workers: every run is in simulated time and every draw is seeded by index.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from venus.eval.fdb import OVERLAP_SUBSETS
from venus.eval.score import SampleScore, score_root

__all__ = ["evaluate", "run_index"]

logger = logging.getLogger(__name__)


def run_index(root: str, seed: int, index: int, subsets: tuple[str, ...],
              held_out: bool = False, notes: list[dict] | None = None) -> int:
    """Synthesize and run sample ``index`` of every subset; returns the folders done."""
    from venus.eval.runner import run_sample
    from venus.eval.synth import synthesize_index

    folders = synthesize_index(Path(root), seed, index, subsets=subsets, held_out=held_out,
                               notes=notes)
    for folder in folders:
        run_sample(folder, notes=notes)
    return len(folders)


def evaluate(root: Path, n: int, seed: int, *, subsets: tuple[str, ...] = OVERLAP_SUBSETS,
             workers: int = 1, held_out: bool = False, notes: list[dict] | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[str, list[SampleScore]]:
    """Synthesize, run and score ``n`` samples per subset under ``root`` (``held_out``: in
    the held-out voice family only)."""
    root = Path(root)
    done = 0
    if workers <= 1:
        for i in range(n):
            run_index(str(root), seed, i, subsets, held_out, notes)
            done += 1
            if progress:
                progress(done, n)
    else:
        ctx = multiprocessing.get_context("spawn")  # no forked torch/onnx state
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            futures = [pool.submit(run_index, str(root), seed, i, subsets, held_out, notes) for i in range(n)]
            for f in as_completed(futures):
                f.result()
                done += 1
                if progress:
                    progress(done, n)
    return score_root(root, subsets)
