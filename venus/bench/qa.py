"""``venus bench qa``: do answers lead with the fact, stay short, and abstain when they should?

Renders (or reuses) the benchmark lecture of the split (`memory.benchmarks.qa`: tuning =
the sample lecture's topics, seed 0, eSpeak en-us; ``--held-out`` = other subjects, seed
2027, another voice), ingests it with the embedded models (or reuses that memory), asks
every question at its time and prints key accuracy per kind, moment accuracy per fact
kind (the first citation holds the fact's sentence or slide, heard right or not),
abstention, false abstention, time-anchor accuracy, answer length and recall@5, and why
fact keys were missed: ``unheard`` (no sentence or line in memory holds an accepted
phrase: Whisper misheard it) or ``heard`` (it is there and another unit was quoted), with
key accuracy on the heard facts alone. ``answer_ms_p50`` is timed on the memory
replicated to ``--hours`` hours (median of 3 rounds).

A kept memory is reused only when it was ingested by the same ingest code: its stamp holds
the split's plan, the ASR model and `ingest_fingerprint()` (a hash of the source of the
modules that decide what is heard, read and segmented, and the installed faster-whisper and
rapidocr versions); any change there re-ingests, so a figure never silently describes
memories built by older code.

``--scorers all`` compares the unit scorers side by side: the default at its threshold
(`memory.answering.RuleRanker.min_score`, calibrated on the tuning, dev and dev2 splits
pooled), each other step of the ladder (`ladder`), on the tuning split, at the threshold
calibrated for it there;
every split prints the default's precision/recall trade-off. ``--split dev``, ``dev2``,
``dev3``, ``dev4`` and ``dev5`` are further topic sets and voices to diagnose on;
``--held-out`` only reports, at the ranker and threshold of `AnswerOptions`: it never
chooses anything.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from venus.bench.report import BenchReport, percentile

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = ("answers from the video memory: key accuracy per question kind, abstention, "
               "time anchors, answer length and latency (tuning or --held-out split)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--held-out", action="store_true",
                   help="the held-out split (other topics, another voice): report only")
    p.add_argument("--split", default=None,
                   choices=("tuning", "dev", "dev2", "dev3", "dev4", "dev5", "held-out"),
                   help="the split (default tuning; --held-out is --split held-out); dev "
                        "(a third topic set, Flite's voice), dev2 (history and "
                        "technology), dev3 (everyday subjects), dev4 (inventions, trade "
                        "and the arts) and dev5 (how things came to be; all four Piper's "
                        "voice) report at the default threshold with their trade-off "
                        "tables")
    p.add_argument("--scorers", default="default",
                   help="'default', 'all', or comma-separated steps of the ranker ladder "
                        "(venus.bench.qa.ladder: 'dense', '+lexical', ...; tuning split only)")
    p.add_argument("--encoder", default=None, metavar="PATH",
                   help="also rank with the default rules reading the question and units "
                        "with this text encoder (a sentence-transformers directory; answers "
                        "only, the memory keeps its own), calibrated on the split unless "
                        "--encoder-threshold; prints its keys and ms per answer beside the "
                        "default")
    p.add_argument("--encoder-prefixes", default="", metavar="QUERY,PASSAGE",
                   help="prefixes the encoder wants, e.g. 'query: ,passage: ' for e5")
    p.add_argument("--encoder-threshold", type=float, default=None,
                   help="the encoder ranker's abstention threshold (default: calibrated)")
    p.add_argument("--hours", type=float, default=1.0,
                   help="time answers on the memory replicated to this many hours (0: skip)")
    p.add_argument("--work", default=".cache/bench-qa",
                   help="where the lectures and memories are kept (default .cache/bench-qa)")
    p.add_argument("--fresh", action="store_true", help="re-ingest even if a memory is kept")
    p.add_argument("--asr", default=None, choices=("tiny.en", "base"),
                   help="the Whisper model that hears the lecture (default: the memory's "
                        "default, tiny.en); another one is kept in its own memory")
    p.add_argument("--show", type=int, default=0,
                   help="also print this many answers per kind (to read them)")


_INGEST_SOURCES = ("memory/audio.py", "memory/media.py", "memory/models/asr.py",
                   "memory/models/vad.py", "memory/models/ocr.py", "memory/models/embedder.py",
                   "memory/models/textnorm.py", "memory/video/*.py", "memory/store/speech.py",
                   "memory/store/pipeline.py", "memory/store/screen.py",
                   "memory/store/screen_text.py",
                   "memory/store/units.py", "memory/store/keyframes.py",
                   "memory/store/hierarchy.py", "memory/store/levels.py",
                   "memory/store/config.py", "memory/store/memory.py")
"""Modules whose code decides what a memory holds (globs, relative to the package root)."""


def ingest_fingerprint() -> str:
    """A short hash of the ingest code (`_INGEST_SOURCES`) and the ASR/OCR library versions:
    a kept memory with another fingerprint was built by other code and is re-ingested."""
    import hashlib
    from importlib import metadata

    import memory

    root = Path(memory.__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for pattern in _INGEST_SOURCES:
        for path in sorted(root.glob(pattern)):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    for dist in ("faster-whisper", "ctranslate2", "rapidocr"):
        try:
            digest.update(f"{dist}=={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{dist} absent".encode())
    return digest.hexdigest()[:16]


def _memory(split, work: Path, fresh: bool, asr: str | None = None):
    from memory.benchmarks.qa import build_lecture
    from memory.store import MemoryModels, VideoMemory

    video, truth = build_lecture(split, work / f"lecture-{split.name}", progress=True)
    mem_dir = work / (f"mem-{split.name}" + (f"-{asr}" if asr else ""))
    stamp = mem_dir / "bench-plan.json"
    plan = json.dumps({**truth.get("plan", {}), "asr": asr, "ingest": ingest_fingerprint()})
    models = MemoryModels()
    if asr is not None:
        from memory.models import WhisperTranscriber

        models.asr = WhisperTranscriber(model=asr)
    if not fresh and stamp.is_file() and stamp.read_text() == plan:
        return VideoMemory.open(mem_dir, models=models), truth, None
    shutil.rmtree(mem_dir, ignore_errors=True)
    mem = VideoMemory.create(mem_dir, models=models)
    t0 = time.perf_counter()
    mem.ingest(video, progress=True)
    seconds = time.perf_counter() - t0
    stamp.write_text(plan)
    return mem, truth, seconds


DEFAULT = "default"


def ladder() -> dict[str, Any]:
    """The rankers ``--scorers all`` compares: `RuleRanker` built up one rule at a time,
    from the embedding alone to the default (each label names what its step adds; the
    rules are in docs/answers.md). The ablation ladder is the benchmark's, not the
    library's: the library ships the default and lets a user pass any feature set."""
    from memory.answering import RuleRanker

    steps = (("dense", ("dense",), {}), ("+lexical", ("lexical",), {}),
             ("+type 0.15", ("type",), {"type": 0.15}),
             ("+info +prior +kind", ("info", "prior", "kind"), {"type": 0.15}),
             ("type 0.3", (), {}), ("+type_needs_terms info 0.3", ("type_needs_terms",),
                                    {"info": 0.3}),
             ("info 0.1", (), {}), ("+named +counts", ("named", "counts"), {}),
             ("+echo", ("echo",), {}), ("+context", ("context",), {}),
             ("+screen", ("screen",), {}), ("+slides", ("slides",), {}),
             ("+near_context", ("near_context",), {}), ("+lemmas", ("lemmas",), {}),
             ("+misheard_names", ("misheard_names",), {}),
             ("+echo_one +clauses", ("echo_one", "clauses"), {}))
    out, features = {}, set()
    for label, added, weights in steps:
        features |= set(added)
        out[label] = RuleRanker(features=frozenset(features), weights=weights)
    return out


def _rankers(arg: str, held_out: bool) -> dict[str, Any]:
    """Label -> ranker for ``--scorers`` (the default ranker as "default")."""
    from memory.answering import AnswerOptions

    default = {DEFAULT: AnswerOptions().ranker}
    if held_out or arg == DEFAULT:
        return default
    steps = ladder()
    names = list(steps) if arg == "all" else [s.strip() for s in arg.split(",") if s.strip()]
    unknown = [n for n in names if n not in steps and n != DEFAULT]
    if unknown:
        raise SystemExit(f"unknown scorer(s) {unknown}; choose from {[DEFAULT, *steps]}")
    out = {}
    for n in names:  # the ladder's last step is the default: reported as the default
        ranker = default[DEFAULT] if n == DEFAULT else steps[n]
        out[DEFAULT if ranker == default[DEFAULT] else n] = ranker
    return out


def _encoder_ranker(args) -> dict[str, Any]:
    """``--encoder``: the default rules reading with another encoder, by its folder name."""
    if not args.encoder:
        return {}
    from memory.answering import AnswerOptions, EncoderRanker
    from memory.models import MiniLMEmbedder

    query, _, passage = args.encoder_prefixes.partition(",")
    label = Path(args.encoder).name
    ranker = EncoderRanker(AnswerOptions().ranker, MiniLMEmbedder(args.encoder), label, query,
                           passage, args.encoder_threshold)
    return {f"{DEFAULT} @ {label}": ranker}


@dataclasses.dataclass(frozen=True)
class _AtThreshold:
    """A ranker abstaining at another threshold (the bench's calibration runs)."""

    ranker: Any
    min_score: float

    @property
    def name(self) -> str:
        return self.ranker.name

    def rank(self, question, units, context):
        return self.ranker.rank(question, units, context)


def _run_variant(mem, qs, ranker, calibrate_it: bool, fixed: bool = False):
    """Results of one ranker; on the tuning split its threshold is calibrated here
    (``fixed``: the trade-off table is made, the ranker's own threshold kept)."""
    from memory.benchmarks.qa import ask_all, calibrate, summarize

    options = mem.options.answer
    saved = dataclasses.replace(options)
    own = ranker.min_score
    mem.options.answer = dataclasses.replace(
        options, ranker=_AtThreshold(ranker, -1e9) if calibrate_it else ranker)
    try:
        results = ask_all(mem, qs)
    finally:
        mem.options.answer = saved
    if not calibrate_it:
        return results, summarize(results), own, []
    threshold, table = calibrate(results)
    if fixed:  # the ranker's own threshold, its row in the table
        threshold = own
        s = summarize(results, threshold)
        pool = [r for r in results if r.question.kind not in ("time_said", "time_slide")
                and not r.extras.get("anchored_answer")]
        abstained = [r for r in pool if r.score < threshold]
        table = sorted(table + [{
            "threshold": threshold, "abstention_accuracy": s["abstention_accuracy"],
            "false_abstention": s["false_abstention"],
            "abstain_precision": sum(not r.question.answerable for r in abstained)
            / len(abstained) if abstained else 1.0}], key=lambda r: r["threshold"])
    return results, summarize(results, threshold), threshold, table


def _latency(mem, qs, work: Path, hours: float) -> tuple[float, float]:
    """answer_ms p50 over 3 rounds of the end-of-video questions on the replicated memory."""
    from memory.benchmarks.synthetic import replicate_memory

    target = work / f"mem-{hours:g}h"
    shutil.rmtree(target, ignore_errors=True)
    big = replicate_memory(mem.db, target, hours, models=mem.models)
    asks = [q.question for q in qs if q.ask_at is None]
    p50s, durations = [], big.duration
    for _ in range(3):
        times = []
        for question in asks:
            t0 = time.perf_counter()
            big.answer(question, at=durations)
            times.append(1000.0 * (time.perf_counter() - t0))
        p50s.append(percentile(times, 50))
    big.close()
    shutil.rmtree(target, ignore_errors=True)
    return float(np.median(p50s)), durations


def run(args: argparse.Namespace) -> BenchReport:
    import torch

    from memory.answering import AnswerOptions
    from memory.benchmarks.qa import ANSWERABLE, KINDS, SPLITS, questions

    torch.set_num_threads(1)  # as in bench memory: one torch thread is faster when shared
    name = "held-out" if args.held_out else (args.split or "tuning")
    args.held_out = name == "held-out"
    split = SPLITS[name]
    work = Path(args.work)
    mem, truth, ingest_s = _memory(split, work, args.fresh, args.asr)
    qs = questions(split, truth)
    built = "kept memory (same ingest code)" if ingest_s is None else f"ingested in {ingest_s:.0f} s"
    print(f"split {split.name}: {mem.duration:.0f} s lecture, {len(qs)} questions; {built}, "
          f"ingest code {ingest_fingerprint()}")
    variants = {}
    default = DEFAULT
    for name, ranker in _rankers(args.scorers, args.held_out).items():
        # the default ranker is reported at its own threshold (chosen on the tuning and
        # dev splits pooled); other rankers on tuning each at the one calibrated here
        variants[name] = _run_variant(mem, qs, ranker, calibrate_it=not args.held_out,
                                      fixed=split.name.startswith("dev") or name == default)
    for name, ranker in _encoder_ranker(args).items():
        calibrate_it = args.encoder_threshold is None
        variants[name] = _run_variant(mem, qs, ranker, calibrate_it=calibrate_it)
    results, figures, threshold, table = variants.get(default) or next(iter(variants.values()))
    _show(results, args.show, threshold if not args.held_out else None)
    rows = _kind_rows(results, threshold if not args.held_out else None, KINDS, ANSWERABLE)
    ms_lecture = percentile([r.ms for r in results if r.question.ask_at is None], 50)
    answer_ms, hours_s = (float("nan"), 0.0)
    if args.hours > 0:
        answer_ms, hours_s = _latency(mem, qs, work, args.hours)
    mem.close()
    figures = dict(figures)
    figures.update({
        "split": split.name, "voice": split.voice, "seed": split.seed,
        "asr": args.asr or "tiny.en",
        "scorer": AnswerOptions().ranker.name, "threshold": threshold,
        "answer_ms_p50": answer_ms, "answer_ms_memory_s": hours_s,
        "answer_ms_p50_lecture": ms_lecture, "lecture_s": truth["duration"],
        "ingest_s": ingest_s, "ingest_fingerprint": ingest_fingerprint(),
        "scorers": {n: {"threshold": v[2], **{k: v[1][k] for k in (
            "key_accuracy", "abstention_accuracy", "false_abstention",
            "time_anchor_accuracy", "answer_chars_p50")}} for n, v in variants.items()},
        "tradeoff": _thin(table),
        "results": [{"kind": r.question.kind, "question": r.question.question,
                     "asked_at": r.asked_at, "score": round(r.score, 4), "found": r.found,
                     "contains": r.contains, "anchored": r.anchored, "moment": r.moment,
                     "heard": r.heard, "text": r.text}
                    for r in results],
    })
    _print_variants(variants)
    _print_tradeoff(table, threshold, split.name)
    keys = figures["key_accuracy"]
    summary = (f"qa {split.name} (ASR {args.asr or 'tiny.en'}): key accuracy "
               + ", ".join(f"{k} {v:.2f}" for k, v in keys.items())
               + "; moment accuracy "
               + ", ".join(f"{k} {v:.2f}" for k, v in figures["moment_accuracy"].items())
               + "; key accuracy on held facts "
               + ", ".join(f"{k} {v:.2f}" for k, v in figures["key_accuracy_heard"].items())
               + f"; abstention {figures['abstention_accuracy']:.2f}, false abstention "
               f"{figures['false_abstention']:.2f}, time anchor "
               f"{figures['time_anchor_accuracy']:.2f}, answer chars p50 "
               f"{figures['answer_chars_p50']:.0f}, recall@5 {figures['recall_at_5']:.2f}, "
               f"answer p50 {answer_ms:.0f} ms at {hours_s / 3600:.1f} h "
               f"({ms_lecture:.0f} ms on the lecture); ranker {figures['scorer']}, threshold "
               f"{threshold:.3f}")
    return BenchReport("qa", ["kind", "n", "key acc", "moment", "key acc held", "abstained",
                              "anchored", "missed unheard/heard"], rows, summary,
                       figures)


def _kind_rows(results, threshold, kinds, answerable):
    from memory.benchmarks.qa import _decide

    rows = []
    for kind in kinds:
        rs = [r for r in results if r.question.kind == kind]
        if not rs:
            continue
        found = [_decide(r, threshold) for r in rs]
        key = sum(f and r.contains for f, r in zip(found, rs)) / len(rs) \
            if kind in answerable else "-"
        anchored = [r.anchored for r in rs if r.anchored is not None]
        missed = [r for f, r in zip(found, rs) if r.heard is not None and not (f and r.contains)]
        fact = kind in ("spoken", "slide", "content")
        moment = sum(f and bool(r.moment) for f, r in zip(found, rs)) / len(rs)
        held = [f and r.contains for f, r in zip(found, rs) if r.heard]
        rows.append([kind, len(rs), key if key == "-" else f"{key:.2f}",
                     f"{moment:.2f}" if fact else "-",
                     f"{sum(held) / len(held):.2f}" if fact and held else "-",
                     f"{1 - sum(found) / len(rs):.2f}",
                     f"{sum(anchored) / len(anchored):.2f}" if anchored else "-",
                     f"{sum(not r.heard for r in missed)}/{sum(bool(r.heard) for r in missed)}"
                     if kind in ("spoken", "slide", "content") else "-"])
    return rows


def _print_variants(variants) -> None:
    if len(variants) < 2:
        return
    print("\nscorers (the default at its threshold; on the tuning split each other one at "
          "the threshold calibrated for it there):")
    for name, (results, s, threshold, _) in variants.items():
        keys = " ".join(f"{k}={v:.2f}" for k, v in s["key_accuracy"].items())
        ms = percentile([r.ms for r in results], 50)
        print(f"  {name:<28} threshold {threshold:6.3f}  {keys}  abstention "
              f"{s['abstention_accuracy']:.2f}  false {s['false_abstention']:.2f}  "
              f"answer p50 {ms:.0f} ms")


def _print_tradeoff(table, threshold, split: str = "tuning") -> None:
    if not table:
        return
    print(f"\nabstention trade-off of the default scorer ({split} split):")
    print("  threshold  abstention  false-abstention  abstain-precision")
    rows = _thin(table)
    rows = sorted(rows + [r for r in table if abs(r["threshold"] - threshold) < 1e-9
                          and r not in rows], key=lambda r: r["threshold"])
    for row in rows:
        mark = "  <- chosen" if abs(row["threshold"] - threshold) < 1e-9 else ""
        print(f"  {row['threshold']:9.3f}  {row['abstention_accuracy']:10.2f}  "
              f"{row['false_abstention']:16.2f}  {row['abstain_precision']:17.2f}{mark}")
    print()


def _thin(table, n: int = 12):
    """About ``n`` evenly spaced rows of the trade-off table (and every row it needs)."""
    if len(table) <= n:
        return table
    step = max(1, len(table) // n)
    return table[::step] + ([table[-1]] if (len(table) - 1) % step else [])


def _show(results, n: int, threshold: float | None) -> None:
    from memory.benchmarks.qa import _decide

    if n <= 0:
        return
    by_kind: dict[str, int] = {}
    for r in results:
        seen = by_kind.get(r.question.kind, 0)
        if seen >= n:
            continue
        by_kind[r.question.kind] = seen + 1
        found = _decide(r, threshold)  # as the figures count it
        mark = "ok " if (found and r.contains) or (not r.question.answerable and not found) \
            else "BAD"
        text = r.text if found else f"(abstains) {r.text}"
        print(f"[{mark}] {r.question.kind:<10} {r.score:5.2f} Q: {r.question.question}\n"
              f"      A: {text}")
