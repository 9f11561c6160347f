"""Memory benchmarks: the needle haystack and loaders/scorers for published formats."""

from memory.benchmarks.needle import (
    KINDS,
    Needle,
    NeedleResult,
    build_haystack,
    score_needles,
    summarize,
)

__all__ = ["KINDS", "Needle", "NeedleResult", "build_haystack", "score_needles", "summarize"]
