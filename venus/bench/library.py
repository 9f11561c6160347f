"""``venus bench library --hours N``: a video library of N hours, simulated, at scale.

Writes a synthetic library (`memory.benchmarks.library`: rows and vectors made like
ingested ones, through the library's real merge path, one-hour videos by default), then
measures: the vector index it chose and its build time (train + add + recall check, from
the stored vectors), recall@10 of its search against exact search (FAISS flat over the
float32 vectors) for questions drawn from another seed - over the whole library, within
one video, and with every video cut at a causal cutoff -, the latency of the index
search alone, and of a whole `VideoLibrary.search` (question embedding + vectors + BM25
+ rows), RAM of the index and of the opened library per hour, and disk per hour. With
``--ingest N`` it ingests N generated lectures for real with 1 and 2 workers instead and
prints the speed-up (`venus.bench.library_ingest`).
"""

from __future__ import annotations

import argparse
import gc
import shutil
import time
from pathlib import Path

import numpy as np

from venus.bench import library_ingest
from venus.bench.memory import _rss_mb
from venus.bench.report import BenchReport, percentile

DESCRIPTION = "a simulated video library of N hours: index recall vs exact, query latency, " \
              "RAM and disk per hour, build time"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hours", type=float, default=100.0, help="library size (default 100)")
    p.add_argument("--video-hours", type=float, default=1.0,
                   help="length of each synthetic video (default 1)")
    p.add_argument("--queries", type=int, default=200,
                   help="questions for recall and index latency (default 200)")
    p.add_argument("--work", default=".cache/bench-library",
                   help="where the library is written (default .cache/bench-library)")
    p.add_argument("--keep", action="store_true", help="keep the library afterwards")
    library_ingest.add_arguments(p)


def _timed(fn, items, rounds: int = 1) -> tuple[float, float, list]:
    """Median over ``rounds`` of the p50 and p95 (ms) of ``fn(item)``; the last results."""
    p50s, p95s, out = [], [], []
    for _ in range(rounds):
        times, out = [], []
        for item in items:
            t0 = time.perf_counter()
            out.append(fn(item))
            times.append(1000.0 * (time.perf_counter() - t0))
        p50s.append(percentile(times, 50))
        p95s.append(percentile(times, 95))
    return float(np.median(p50s)), float(np.median(p95s)), out


def _exact(db, queries: np.ndarray, ranges=None, k: int = 10) -> np.ndarray:
    """Exact top-k ids over the float32 vectors stored in SQLite (the ground truth)."""
    import faiss

    from memory.index.faiss_index import normalize_ranges

    ids = db.times("segments")[0]
    ranges = normalize_ranges(ranges)
    if ranges is not None:
        keep = np.zeros(len(ids), bool)
        for lo, hi in ranges:
            keep |= (ids >= lo) & (ids < hi)
        ids = ids[keep]
    flat = faiss.IndexFlatIP(queries.shape[1])
    for p in range(0, len(ids), 50_000):
        flat.add(db.embeddings("segments", ids[p:p + 50_000]))
    _, rows = flat.search(queries, k)
    return np.where(rows >= 0, ids[np.maximum(rows, 0)], -1)


def _scopes(lib, rng) -> dict[str, list | None]:
    from memory.library.db import video_block

    videos = lib.db.videos()
    one = videos[int(rng.integers(0, len(videos)))]
    lvl = lib._levels["segment"]
    half = max(r.duration for r in videos) / 2.0
    cut = lvl.ranges([(r.no, half) for r in videos], None, None)
    return {"all videos": None, "one video": [video_block(one.no)],
            f"every video before {half / 60:.0f} min": cut}


def run(args: argparse.Namespace) -> BenchReport:
    if args.ingest:
        return library_ingest.run(args)
    import torch
    from tqdm.auto import tqdm

    from memory.benchmarks.library import real_model, synthetic_library
    from memory.index import FaissIndex
    from memory.index.ivfpq import recall_at
    from memory.library import VideoLibrary
    from memory.store import MemoryModels

    torch.set_num_threads(1)  # as in bench memory: one thread is faster under load
    models = MemoryModels()
    model, questions = real_model(models.embedder, args.seed)
    target = Path(args.work) / f"library-{args.hours:g}h-seed{args.seed}"
    shutil.rmtree(target, ignore_errors=True)
    lib = VideoLibrary.create(target, models=models)
    n_videos = max(1, round(args.hours / args.video_hours))
    t0 = time.perf_counter()
    for _ in tqdm(synthetic_library(lib, args.hours, args.video_hours, args.seed, model),
                  total=n_videos, desc="writing", unit="video"):
        pass
    write_s = time.perf_counter() - t0
    lib.close()
    disk_mb = sum(p.stat().st_size for p in target.rglob("*") if p.is_file()) / 2**20

    gc.collect()
    rss0 = _rss_mb()
    t0 = time.perf_counter()
    lib = VideoLibrary.open(target, models=models)
    open_s = time.perf_counter() - t0
    rss_open = _rss_mb() - rss0
    hours = lib.stats()["hours"]
    index = lib._levels["segment"].vectors
    vectors = len(index) + len(lib._levels["chapter"].vectors)
    index_mb = (index.nbytes + lib._levels["chapter"].vectors.nbytes) / 2**20
    terms_mb = sum(lvl.terms.nbytes for lvl in lib._levels.values()) / 2**20

    ids = lib.db.times("segments")[0]
    t0 = time.perf_counter()
    rebuilt = FaissIndex(index.dim, lib.options.index)
    for p in range(0, len(ids), 50_000):
        rebuilt.add(ids[p:p + 50_000], lib.db.embeddings("segments", ids[p:p + 50_000]))
    build_s = time.perf_counter() - t0
    del rebuilt
    gc.collect()

    rng = np.random.default_rng(args.seed + 1000)  # held out: not the library's seed
    queries = model.questions(rng, args.queries)
    rows, figures_scope = [], {}
    for name, ranges in _scopes(lib, rng).items():
        truth = _exact(lib.db, queries, ranges)
        p50, p95, found = _timed(lambda q, r=ranges: index.search(q[None, :], 10, r)[1][0],
                                 queries, rounds=3)
        recall = recall_at(np.array(found), truth, 10)
        figures_scope[name] = {"recall_at_10": recall, "index_ms_p50": p50, "index_ms_p95": p95}
        rows.append([name, "index", f"{p50:.2f}", f"{p95:.2f}", f"{recall:.3f}"])

    asks = [q for q in questions] + [f"{q.rstrip('?')} in lecture {i}" for i, q in
                                     enumerate(questions)]
    lib.search(asks[0])  # warm the embedder and SQLite's page cache
    q50, q95, _ = _timed(lambda q: lib.search(q, k=5), asks, rounds=3)
    rows.append(["all videos", "library.search", f"{q50:.2f}", f"{q95:.2f}", "-"])
    one_id = lib.db.videos()[0].video_id
    v50, v95, _ = _timed(lambda q: lib.search(q, k=5, videos=[one_id], before=1800.0), asks,
                         rounds=3)
    rows.append(["one video before 30 min", "library.search", f"{v50:.2f}", f"{v95:.2f}", "-"])
    stats = lib.stats()
    lib.close()
    if not args.keep:
        shutil.rmtree(target, ignore_errors=True)

    main = figures_scope["all videos"]
    figures = {
        "hours": hours, "vectors": vectors, "videos": n_videos,
        "query_ms_p50": q50, "query_ms_p95": q95,
        "query_timing": "VideoLibrary.search(k=5) over the whole library: question embedding "
                        "(MiniLM, 1 thread), IVF-PQ + BM25 (TermIndex) + fusion + rows; "
                        f"median of 3 rounds over {len(asks)} questions",
        "query_ms_p95_one_video": v95,
        "recall_at_10": main["recall_at_10"], "index_ms_p50": main["index_ms_p50"],
        "index_ms_p95": main["index_ms_p95"], "scopes": figures_scope,
        "index": stats["index"]["segment"]["kind"], "index_detail": stats["index"],
        "ram_mb_per_hour": index_mb / hours, "rss_open_mb_per_hour": rss_open / hours,
        "lexical_ram_mb_per_hour": terms_mb / hours,
        "disk_mb_per_hour": disk_mb / hours, "build_s": build_s, "write_s": write_s,
        "open_s": open_s,
        "vector_model": {"real_cosines": model.real_stats,
                         "synthetic_cosines": model.synthetic_stats(np.random.default_rng(1)),
                         "within": model.within, "between": model.between},
    }
    summary = (f"library: {hours:g} h, {vectors} vectors ({figures['index']}), "
               f"recall@10 {main['recall_at_10']:.3f} vs exact, search p95 {q95:.1f} ms "
               f"(index alone {main['index_ms_p95']:.2f} ms), index RAM "
               f"{figures['ram_mb_per_hour']:.3f} MB/h, BM25 {terms_mb / hours:.3f} MB/h "
               f"(library open "
               f"{figures['rss_open_mb_per_hour']:.2f} MB/h), disk "
               f"{figures['disk_mb_per_hour']:.2f} MB/h, build {build_s:.1f} s")
    return BenchReport("library", ["scope", "what", "p50 ms", "p95 ms", "recall@10"], rows,
                       summary, figures)
