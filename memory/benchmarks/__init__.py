"""Memory benchmarks: the needle haystack, and the published benchmarks (StreamingBench,
OVO-Bench, MLVU, VNBench, V-NIAH) read, run causally and scored as their authors do."""

from memory.benchmarks.formats import AnnotationError, Probe
from memory.benchmarks.mlvu import load as load_mlvu
from memory.benchmarks.needle import (
    KINDS,
    Needle,
    NeedleResult,
    build_haystack,
    score_needles,
    summarize,
)
from memory.benchmarks.ovobench import load as load_ovobench
from memory.benchmarks.protocol import ProbeResult, is_correct, run_probes, score_probes
from memory.benchmarks.runner import DATASETS, DatasetRun, run_dataset
from memory.benchmarks.streamingbench import load as load_streamingbench
from memory.benchmarks.vnbench import load as load_vnbench
from memory.benchmarks.vniah import load as load_vniah
from memory.benchmarks.vniah import needle_probes as vniah_probes

__all__ = ["DATASETS", "KINDS", "AnnotationError", "DatasetRun", "Needle", "NeedleResult",
           "Probe", "ProbeResult", "build_haystack", "is_correct", "load_mlvu", "load_ovobench",
           "load_streamingbench", "load_vnbench", "load_vniah", "run_dataset", "run_probes",
           "score_needles", "score_probes", "summarize", "vniah_probes"]
