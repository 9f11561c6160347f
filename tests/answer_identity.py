"""Replies of the answer benchmark's splits, captured on kept memories, to pin a refactor.

Not a test module (no ``test_`` prefix): `tests/test_answer_identity.py` reads what this
writes. Every question of every split (`memory.benchmarks.qa.SPLITS`) is asked, at its
time, of the split's memory as ``venus bench qa`` keeps it (``.cache/bench-qa/mem-<split>``,
built here when missing, the same way the bench builds it), and the reply is stored key by
key: its text, whether it answered, its lead score, the lead evidence and the spans of its
citations. The memory's own fingerprint (its units and transcripts) is stored beside the
replies, so a memory re-ingested by other code (another Whisper, another OCR) is told
apart from an answering change.

Capture before a change to answering, from the code before it::

    PYTHONPATH=. python tests/answer_identity.py --work .cache/bench-qa dev dev2

The replies land in ``tests/data/answer_identity/<split>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "answer_identity"
WORK = Path(__file__).resolve().parent.parent / ".cache" / "bench-qa"


def memory_fingerprint(mem: Any) -> str:
    """A hash of what the memory holds that answers read: its units and chunk texts."""
    digest = hashlib.sha256()
    for u in mem.db.all_units():
        digest.update(f"{u.kind}|{u.start:.3f}|{u.end:.3f}|{u.segment_id}|{u.text}\n".encode())
    for c in mem.db.all_chunks():
        digest.update(f"{c.index}|{c.transcript}|{c.ocr_text}\n".encode())
    return digest.hexdigest()[:16]


def question_key(kind: str, question: str, ask_at: float | None) -> str:
    return f"{kind}|{'end' if ask_at is None else f'{ask_at:.2f}'}|{question}"


def reply_record(reply: Any) -> dict[str, Any]:
    """What a reader sees of one reply, and what the benchmark scores it by."""
    return {
        "text": reply.text,
        "found": bool(reply.found),
        "score": round(float(reply.extras.get("score", 0.0)), 9),
        "evidence": [[e.kind, round(e.start, 3), round(e.end, 3), e.text]
                     for e in reply.evidence],
        "citations": [[round(m.start, 3), round(m.end, 3)] for m in reply.citations],
    }


def open_split_memory(name: str, work: Path, build: bool):
    """The split's kept memory and its rendered truth (None when missing and not ``build``)."""
    from memory.benchmarks.qa import SPLITS

    split = SPLITS[name]
    mem_dir = work / f"mem-{name}"
    lecture = work / f"lecture-{name}" / "lecture.json"
    if not build and not (mem_dir.is_dir() and lecture.is_file()):
        return None, None, split
    if build:
        from venus.bench.qa import _memory

        mem, truth, _ = _memory(split, work, fresh=False)
        return mem, truth, split
    from memory.store import VideoMemory

    return VideoMemory.open(mem_dir), json.loads(lecture.read_text()), split


def replies(mem: Any, truth: dict, split: Any) -> dict[str, dict[str, Any]]:
    """Every question of the split asked at its time: key -> `reply_record`."""
    from memory.benchmarks.qa import questions

    end = mem.duration
    out = {}
    for q in questions(split, truth):
        reply = mem.answer(q.question, at=end if q.ask_at is None else q.ask_at)
        out[question_key(q.kind, q.question, q.ask_at)] = reply_record(reply)
    return out


def capture(names: list[str], work: Path = WORK, out: Path = DATA) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        mem, truth, split = open_split_memory(name, work, build=True)
        try:
            record = {"split": name, "memory": memory_fingerprint(mem),
                      "replies": replies(mem, truth, split)}
        finally:
            mem.close()
        (out / f"{name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False)
                                          + "\n", encoding="utf-8")
        print(f"{name}: {len(record['replies'])} replies, memory {record['memory']}",
              flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("splits", nargs="+")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    capture(args.splits, args.work, args.out)
