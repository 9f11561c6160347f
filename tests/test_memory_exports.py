"""The public surface of the memory library: exported names exist and do not drift silently."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = {
    "memory": {
        "Answer", "Answerer", "AudioFormatError", "CameraError", "Captioner", "EmptyVideoError",
        "Evidence", "ExtractiveAnswerer", "FaissIndex", "Frame", "IndexOptions", "MemoryModels", "MemoryReader",
        "MemoryToolkitError", "MissingExtraError", "ModelUnavailableError", "Moment",
        "NetworkVideoError", "NoVideoStreamError", "NotAVideoError", "Note", "NotesError",
        "NotesMemory", "Reranker", "SAMPLE_RATE", "StoreError", "StoreFullError", "StoreNotWritableError", "StoreOptions",
        "StoreWriteError", "SubtitleError",
        "TransformersVLM", "TruncatedVideoError", "VLMOptions", "VectorIndex", "VideoChunk",
        "VideoError", "VideoInfo", "VideoMemory", "VideoNotFoundError",
    },
    "memory.models": {
        "Answerer", "Captioner", "CrossEncoderReranker", "ExtractiveQAReranker", "ImageEmbedder",
        "Relevance", "Reranker", "EspeakSynthesizer", "FliteSynthesizer",
        "TransformersImageEmbedder",
        "PiperSynthesizer", "MiniLMEmbedder", "RapidOCRReader", "SileroSpeechDetector",
        "ShortClipTranscriber", "Speech", "SpeechDetector", "SpeechRegion", "SpeechSynthesizer",
        "TextBox",
        "TextEmbedder", "TextReader", "Transcriber", "Transcript", "TranscriptSegment",
        "VADStream", "VOICES", "WhisperTranscriber", "Word", "word_error_rate",
    },
    "memory.video": {
        "CameraSource", "DECODERS", "FrameReader", "MAX_SIDE", "OpenCVReader", "VideoSource",
        "open_video", "probe", "write_video",
    },
    "memory.samples": {
        "LectureFiles", "LectureScript", "SCENES", "Slide", "lecture_script", "make_lecture",
        "render_lecture",
    },
    "memory.benchmarks": {
        "DATASETS", "KINDS", "AnnotationError", "DatasetRun", "Needle", "NeedleResult", "Probe",
        "ProbeResult", "build_haystack", "is_correct", "load_mlvu", "load_ovobench",
        "load_streamingbench", "load_vnbench", "load_vniah", "run_dataset", "run_probes",
        "score_needles", "score_probes", "summarize", "vniah_probes",
    },
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_exported_names_are_exactly_the_documented_ones(module_name):
    module = importlib.import_module(module_name)
    assert set(module.__all__) == PUBLIC[module_name]
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{module_name}.{name} is exported but missing"


def test_importing_the_libraries_loads_no_heavy_dependency():
    """`import memory, venus` stays fast: models and decoders load on first use."""
    code = ("import sys, memory, memory.models, memory.video, venus; "
            "print(sorted(m for m in ('torch', 'faiss', 'av', 'transformers', 'onnxruntime', "
            "'ctranslate2', 'cv2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_memory_never_imports_venus():
    code = ("import sys, memory, memory.models, memory.video, memory.samples, "
            "memory.benchmarks, memory.store; print([m for m in sys.modules if m.startswith('venus')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
