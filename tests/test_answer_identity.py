"""The answering move of issue 27 changes no reply: every split's replies, key by key.

The replies were captured by `tests/answer_identity.py` with the code before the move
(``memory/answer.py`` and ``memory/store/answering.py``), on each split's kept memory
(``.cache/bench-qa/mem-<split>``, as ``venus bench qa`` keeps it; another folder with
``VENUS_QA_WORK``). Each split is asked again here and must give the same text, the same
decision, the same lead evidence and citations, and the same lead score. A split whose
memory is missing, or holds other units than the one captured on (re-ingested by other
code), is skipped, saying so: that is a memory change, not an answering one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from answer_identity import DATA, WORK, memory_fingerprint, open_split_memory, replies

pytestmark = pytest.mark.slow

SPLITS = sorted(p.stem for p in DATA.glob("*.json"))


def test_every_split_was_captured():
    assert set(SPLITS) == {"tuning", "dev", "dev2", "dev3", "dev4", "dev5", "held-out"}


@pytest.mark.parametrize("name", SPLITS)
def test_the_move_changes_no_reply(name):
    captured = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    work = Path(os.environ.get("VENUS_QA_WORK", WORK))
    mem, truth, split = open_split_memory(name, work, build=False)
    if mem is None:
        pytest.skip(f"no kept memory of {name} in {work}: build it with "
                    f"`python tests/answer_identity.py --out /tmp/x {name}`")
    try:
        if memory_fingerprint(mem) != captured["memory"]:
            pytest.skip(f"the kept memory of {name} holds other units than the one the "
                        f"replies were captured on (re-ingested by other code)")
        now = replies(mem, truth, split)
    finally:
        mem.close()
    assert set(now) == set(captured["replies"])
    changed = []
    for key, was in captured["replies"].items():
        got = now[key]
        same = {k: got[k] == was[k] for k in ("text", "found", "evidence", "citations")}
        same["score"] = got["score"] == pytest.approx(was["score"], abs=1e-6)
        if not all(same.values()):
            changed.append(f"{key}: {[k for k, v in same.items() if not v]}\n"
                           f"  was {was['text']!r} ({was['score']})\n"
                           f"  now {got['text']!r} ({got['score']})")
    assert not changed, f"{len(changed)} replies changed:\n" + "\n".join(changed)
