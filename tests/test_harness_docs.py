"""The Python blocks of docs/harness.md run, in order, as one program."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "harness.md"


def test_harness_guide_code_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 2
    namespace: dict = {"__name__": "harness_guide"}
    exec(compile("\n".join(blocks), str(DOC), "exec"), namespace)  # noqa: S102 - our own docs
    assert namespace["summary"].delivered == 2
