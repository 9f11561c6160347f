"""Memory benchmarks: the needle haystack and loaders/scorers for published formats."""

from memory.benchmarks.formats import (
    Probe,
    load_mlvu,
    load_ovobench,
    load_streamingbench,
    load_vniah,
    vniah_probes,
)
from memory.benchmarks.needle import (
    KINDS,
    Needle,
    NeedleResult,
    build_haystack,
    score_needles,
    summarize,
)
from memory.benchmarks.protocol import ProbeResult, is_correct, run_probes, score_probes

__all__ = ["KINDS", "Needle", "NeedleResult", "Probe", "ProbeResult", "build_haystack",
           "is_correct", "load_mlvu", "load_ovobench", "load_streamingbench", "load_vniah",
           "run_probes", "score_needles", "score_probes", "summarize", "vniah_probes"]
