"""``venus doctor``: what each seam will run on here (CPU or GPU, model, version) and why.

It inspects the installed packages and devices without loading any model, so it is fast
and safe to run first on a new machine. Problems that make a seam unusable (a missing
package, two copies of FAISS or onnxruntime in one environment) are listed with the fix;
the exit code is 1 when there is one. ``--json PATH`` writes the same report.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

from memory.errors import MemoryToolkitError

__all__ = ["Seam", "diagnose", "register"]


@dataclass
class Seam:
    """One row of the report: a seam, where it runs, with what, and why."""

    name: str
    runs_on: str
    model: str = ""
    version: str = ""
    why: str = ""
    problems: list[str] = field(default_factory=list)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="show what each seam runs on (CPU/GPU, model, version) and why",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seams = diagnose()
    width = max(len(s.name) for s in seams)
    print(f"realtime-venus {_dist('realtime-venus') or '(not installed)'} on Python "
          f"{platform.python_version()}, {platform.platform()}")
    for s in seams:
        print(f"\n{s.name.ljust(width)}  {s.runs_on}")
        for label, value in (("model", s.model), ("version", s.version), ("why", s.why)):
            if value:
                print(f"{' ' * width}  {label + ':':<9}{value}")
        for problem in s.problems:
            print(f"{' ' * width}  PROBLEM: {problem}")
    problems = [p for s in seams for p in s.problems]
    print(f"\n{len(problems)} problem(s)" if problems else "\nno problems found")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"seams": [asdict(s) for s in seams],
                                               "problems": problems}, indent=2))
    return 1 if problems else 0


def diagnose() -> list[Seam]:
    """Every seam, checked without loading a model."""
    return [_torch(), _faiss(), _asr(), _embedder(), _onnx("voice activity (Silero VAD)",
            "silero-vad", _silero_model()), _onnx("OCR (RapidOCR, PP-OCR)", "rapidocr", ""),
            _tts(), _voice(), _end_of_turn(), _decoder()]


def _dist(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _torch() -> Seam:
    try:
        import torch
    except ImportError:
        fix = "torch is not installed: bash scripts/setup.sh (a CPU build on machines without CUDA)"
        return Seam("torch", "missing", problems=[fix])
    cuda = torch.version.cuda
    if torch.cuda.is_available():
        return Seam("torch", f"GPU ({torch.cuda.get_device_name(0)})", version=torch.__version__,
                    why=f"a CUDA {cuda} build and {torch.cuda.device_count()} visible device(s); "
                        "model frontends take device='cuda'")
    why = ("a CPU-only build" if cuda is None
           else f"a CUDA {cuda} build, but no CUDA device is visible")
    return Seam("torch", "CPU", version=torch.__version__, why=why)


def _faiss() -> Seam:
    cpu, gpu = _dist("faiss-cpu"), _dist("faiss-gpu-cu12") or _dist("faiss-gpu")
    seam = Seam("vector index (FAISS)", "missing", version=gpu or cpu or "")
    if cpu and gpu:
        seam.problems.append("faiss-cpu and a faiss-gpu package are both installed: they share "
                             "one 'faiss' folder; pip uninstall -y faiss-cpu faiss-gpu-cu12, "
                             "then pip install 'realtime-venus[gpu]' (or [cpu])")
    try:
        import faiss
    except ImportError:
        seam.problems.append("FAISS is not installed: pip install 'realtime-venus[cpu]' "
                             "(or [gpu] on a CUDA machine)")
        return seam
    gpus = faiss.get_num_gpus() if hasattr(faiss, "StandardGpuResources") else 0
    if gpus:
        seam.runs_on, seam.why = "GPU", (f"faiss with GPU support sees {gpus} GPU(s); exact "
                                         "search is replicated there (IndexOptions(use_gpu='auto'))")
    elif hasattr(faiss, "StandardGpuResources"):
        seam.runs_on, seam.why = "CPU", "faiss has GPU support but sees no GPU"
    else:
        seam.runs_on, seam.why = "CPU", "faiss-cpu has no GPU support ([gpu] installs faiss-gpu-cu12)"
    seam.version = f"{'faiss-gpu-cu12' if gpu else 'faiss-cpu'} {getattr(faiss, '__version__', seam.version)}"
    return seam


def _asr() -> Seam:
    seam = Seam("speech recognition (Whisper)", "missing", version=_dist("ctranslate2") or "")
    try:
        from memory.models.asr import default_whisper_path, whisper_device

        seam.model = f"{default_whisper_path()} (tiny.en, CTranslate2 int8)"
        device, why = whisper_device("auto")
    except (MemoryToolkitError, ImportError) as exc:  # a missing package: reported, not raised
        seam.problems.append(str(exc))
        return seam
    seam.runs_on = "GPU (CUDA)" if device == "cuda" else "CPU"
    seam.why = f"WhisperTranscriber(device='auto'): {why}"
    seam.version = f"faster-whisper {_dist('faster-whisper')}, ctranslate2 {_dist('ctranslate2')}"
    return seam


def _embedder() -> Seam:
    seam = Seam("text embedding", "CPU", version=f"transformers {_dist('transformers')}",
                why="MiniLMEmbedder(device='cpu') by default: a 22M-parameter model; pass "
                    "device='cuda' for a bigger one")
    try:
        from memory.models.embedder import default_embedder_path

        seam.model = f"{default_embedder_path()} (all-MiniLM-L6-v2, 384-d)"
    except (MemoryToolkitError, ImportError) as exc:
        seam.runs_on = "missing"
        seam.problems.append(str(exc))
    return seam


def _silero_model() -> str:
    try:
        from memory.models.vad import default_vad_path
    except ImportError:
        return ""
    try:
        return str(default_vad_path())
    except (MemoryToolkitError, OSError):
        return ""


def _onnx(name: str, package: str, model: str) -> Seam:
    seam = Seam(name, "CPU", model=model or f"the ONNX models inside the {package} wheel",
                version=f"{package} {_dist(package)}")
    if _dist(package) is None:
        seam.runs_on = "missing"
        seam.problems.append(f"{package} is not installed: pip install realtime-venus")
    if _dist("onnxruntime") and _dist("onnxruntime-gpu"):
        seam.problems.append("onnxruntime and onnxruntime-gpu are both installed (one shared "
                             "folder): pip uninstall -y onnxruntime onnxruntime-gpu, then pip "
                             "install onnxruntime-gpu (scripts/setup.sh --gpu --onnxruntime-gpu)")
    try:
        import onnxruntime as ort

        providers = ort.get_available_providers()
    except ImportError:
        seam.problems.append("onnxruntime is not installed: pip install realtime-venus")
        return seam
    seam.version += f", onnxruntime {ort.__version__}"
    gpu = "CUDAExecutionProvider" in providers
    seam.why = ("CPUExecutionProvider, on purpose: small models, sessions sized to the cores; "
                + ("onnxruntime also offers CUDA here" if gpu else
                   f"onnxruntime offers {', '.join(providers)}"))
    return seam


def _tts() -> Seam:
    seam = Seam("text to speech (eSpeak NG)", "CPU", version=f"espeakng-loader {_dist('espeakng-loader')}",
                why="a formant synthesizer: CPU only")
    try:
        import espeakng_loader

        seam.model = str(espeakng_loader.get_library_path())
    except (ImportError, AttributeError, OSError) as exc:
        seam.runs_on = "missing"
        seam.problems.append(f"espeakng-loader is not usable ({exc}): pip install realtime-venus")
    return seam


def _voice(missing=None) -> Seam:
    """The assistant's own voice: Piper when the voices extra is installed, else eSpeak NG
    (a fallback, not a problem); ``missing`` replaces the check for Piper (tests)."""
    from venus.speech.synthesis import choose_voice, piper_missing

    voice = choose_voice(missing or piper_missing)
    package = "piper-tts" if voice.engine == "piper" else "espeakng-loader"
    return Seam("the assistant's voice", "CPU", model=voice.name,
                version=f"{package} {_dist(package)}", why=voice.reason)


def _end_of_turn() -> Seam:
    """Smart Turn v3.2, taken from the pipecat-ai wheel at setup; without it every pause
    the VAD confirms ends the user's turn (a fallback, not a problem)."""
    from venus.perception.turn import turn_model_path

    path = turn_model_path()
    seam = Seam("end of turn (Smart Turn v3.2)", "CPU", model=str(path),
                version=f"onnxruntime {_dist('onnxruntime')}",
                why="a small ONNX classifier read once per pause: CPU only")
    if not path.exists():
        seam.runs_on = "missing"
        seam.why = ("not installed: every pause the VAD confirms ends the turn; bash "
                    "scripts/setup.sh takes the model from the pipecat-ai wheel")
    return seam


def _decoder() -> Seam:
    seam = Seam("video decoding", "CPU", version=f"PyAV {_dist('av')}",
                why="PyAV by default (measured faster than decord here: README)")
    try:
        import av

        ffmpeg = av.library_versions.get("libavcodec")
        if ffmpeg:
            seam.version += ", libavcodec " + ".".join(map(str, ffmpeg))
    except ImportError:
        seam.runs_on = "missing"
        seam.problems.append("PyAV is not installed: pip install realtime-venus")
    if _dist("decord"):
        seam.version += f"; decord {_dist('decord')} available (open_video(decoder='decord'))"
    if sys.platform == "win32":
        seam.why += "; camera capture uses OpenCV's default backend"
    return seam
