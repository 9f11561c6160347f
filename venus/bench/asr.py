"""``venus bench asr``: word error rate and speed of every embedded Whisper, in one run.

Two narrated lectures are rendered (or reused): the sample lecture (seed 0, eSpeak
``en-us``) and one in another voice family on another topic order (seed 1, Piper's
neural ``en_US-joe-medium``; the ``voices`` extra).
Each is decoded once and its speech found once by the embedded VAD, then every model
transcribes it through the memory's own path (`memory.store.speech.SpeechBatcher`:
30 s batches, packed windows), without the slide text as Whisper's prompt: it compares
the models themselves, while ingest by default also hears each region after the screen's
OCR text (`SpeechOptions.screen_prompt`; docs/hearing.md gives its WER, lower than the
figures here on slide terms). Runs are
interleaved per lecture (model order alternates between repeats) on one shared machine.

WER is scored against the script with OpenAI Whisper's English text normalizer
(``whisper_normalizer.english.EnglishTextNormalizer``): the standard rule for Whisper
English results (spelling variants, numbers, fillers). It is reported per model over
both lectures together (errors / reference words) and per lecture; ``x_realtime`` is
lecture seconds over ASR seconds (VAD excluded, models loaded and warmed first), the
median over ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from venus.bench.report import BenchReport

__all__ = ["DESCRIPTION", "LECTURES", "add_arguments", "run"]

DESCRIPTION = ("word error rate (Whisper English normalizer) and x real time of each embedded "
               "Whisper on two narrated lectures in different voices")

LECTURES = (("sample", 0, "espeak:en-us"), ("other-voice", 1, "piper:en_US-joe-medium"))
"""(name, content seed, engine:voice) of the lectures every model transcribes."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from memory.models.asr import MODELS

    p.add_argument("--minutes", type=float, default=3.0, help="length of each lecture (default 3)")
    p.add_argument("--models", default=",".join(MODELS),
                   help=f"models to compare, comma-separated (default {','.join(MODELS)})")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per model and lecture; speed is their median (default 1)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"),
                   help="where Whisper runs (default cpu)")
    p.add_argument("--work", default=".cache/bench-asr",
                   help="where the lectures are kept (default .cache/bench-asr)")


def run(args: argparse.Namespace) -> BenchReport:
    from memory.models import SileroSpeechDetector, WhisperTranscriber

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if args.repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {args.repeat}")
    normalizer = _normalizer()
    asrs = {m: WhisperTranscriber(model=m, device=args.device) for m in models}
    vad = SileroSpeechDetector()
    for asr in asrs.values():  # load and warm up: timing is steady-state work
        asr.transcribe(np.zeros(16000, np.float32))
    results: dict[str, dict[str, dict[str, Any]]] = {m: {} for m in models}
    for name, seed, voice in LECTURES:
        chunks, reference, seconds = _lecture(Path(args.work), name, seed, voice, args.minutes)
        for r in range(args.repeat):
            for model in (models if r % 2 == 0 else models[::-1]):
                hyp, asr_s = _transcribe(asrs[model], vad, chunks)
                entry = results[model].setdefault(name, {"seconds": seconds, "runs": [],
                                                         "voice": voice})
                entry["runs"].append(asr_s)
                entry.update(_score(normalizer, reference, hyp))
    return _report(args, results)


def _normalizer():
    try:
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError:
        from memory.errors import MissingExtraError

        raise MissingExtraError("whisper_normalizer", "bench",
                                "Scoring ASR with the Whisper English normalizer") from None
    return EnglishTextNormalizer()


def _voice(spec: str):
    engine, _, name = spec.partition(":")
    if engine == "piper":
        from memory.models.voices import PiperSynthesizer

        return PiperSynthesizer(name)
    from memory.models.tts import EspeakSynthesizer

    return EspeakSynthesizer(voice=name)


def _lecture(work: Path, name: str, seed: int, voice: str, minutes: float):
    """Render (or reuse) one lecture; return its chunks, reference text and length."""
    import json

    from memory.samples import lecture_script, render_lecture
    from memory.video import open_video

    out = work / f"{name}-{minutes:g}min"
    truth_path = out / "lecture.json"
    key = {"seed": seed, "voice": voice, "minutes": minutes}
    if not (truth_path.is_file() and json.loads(truth_path.read_text()).get("asr_bench") == key):
        script = lecture_script(minutes, seed)
        render_lecture(script, out, extra={"asr_bench": key}, tts=_voice(voice))
    truth = json.loads(truth_path.read_text())
    with open_video(out / "lecture.mp4") as source:
        chunks = [c for c in source]
    reference = " ".join(s["text"] for s in truth["sentences"])
    return chunks, reference, chunks[-1].end


def _transcribe(asr, vad, chunks) -> tuple[str, float]:
    from memory.store.speech import SpeechBatcher
    from memory.store.timing import StageTimes

    timers = StageTimes()  # wall seconds per stage (a dict), CPU seconds beside them
    batcher = SpeechBatcher(vad, asr, timers=timers)
    words = []
    try:
        for chunk in chunks:
            for _chunk, got in batcher.push(chunk):
                words += [w.text for w in got]
        for _chunk, got in batcher.flush():
            words += [w.text for w in got]
    finally:
        batcher.close()
    return " ".join(words), timers.get("asr", 0.0)


def _score(normalizer, reference: str, hypothesis: str) -> dict[str, Any]:
    from memory.models.textnorm import edit_distance

    ref, hyp = normalizer(reference).split(), normalizer(hypothesis).split()
    errors = edit_distance(ref, hyp)
    return {"errors": errors, "ref_words": len(ref), "wer": errors / max(len(ref), 1),
            "hypothesis": hypothesis}


def _report(args: argparse.Namespace, results: dict) -> BenchReport:
    header = ["model", "lecture", "voice", "ref_words", "wer", "asr_s", "x_realtime"]
    rows, wer, speed, by_lecture = [], {}, {}, {}
    for model, lectures in results.items():
        errors = words = seconds = asr_s = 0.0
        by_lecture[model] = {}
        for name, e in lectures.items():
            median = statistics.median(e["runs"])
            rows.append([model, name, e["voice"], e["ref_words"], round(e["wer"], 3),
                         round(median, 1), round(e["seconds"] / median, 1)])
            by_lecture[model][name] = {"wer": round(e["wer"], 4),
                                       "x_realtime": round(e["seconds"] / median, 2),
                                       "asr_seconds_runs": [round(s, 2) for s in e["runs"]]}
            errors, words = errors + e["errors"], words + e["ref_words"]
            seconds, asr_s = seconds + e["seconds"], asr_s + median
        wer[model] = round(errors / max(words, 1), 4)
        speed[model] = round(seconds / asr_s, 2) if asr_s else float("inf")
    figures = {"wer": wer, "x_realtime": speed, "by_lecture": by_lecture,
               "normalizer": "whisper_normalizer.english.EnglishTextNormalizer "
                             "(OpenAI Whisper's English normalizer)",
               "lectures": [{"name": n, "seed": s, "voice": v} for n, s, v in LECTURES],
               "minutes": args.minutes, "repeat": args.repeat, "device": args.device}
    summary = "; ".join(f"{m}: WER {wer[m]:.3f}, {speed[m]:.1f}x real time" for m in wer)
    runs = "1 run" if args.repeat == 1 else f"median of {args.repeat} interleaved runs"
    summary += f" (both lectures, {args.minutes:g} min each, {runs})"
    return BenchReport(name="asr", header=header, rows=rows, summary=summary, figures=figures)
