"""The [gpu] path on a CUDA machine: FAISS searches on the GPU, Whisper runs on CUDA.

Skipped where no GPU is visible (this project's CI has none); scripts/gpu_check.sh runs
this file on a GPU machine after ``bash scripts/setup.sh --gpu``.
"""

from __future__ import annotations

import numpy as np
import pytest



def _faiss_gpus() -> int:
    try:
        import faiss
    except ImportError:
        return 0
    return faiss.get_num_gpus() if hasattr(faiss, "StandardGpuResources") else 0


def _ctranslate2_gpus() -> int:
    from memory.models.asr import whisper_device

    return int(whisper_device("auto")[0] == "cuda")


@pytest.mark.skipif(_faiss_gpus() == 0, reason="needs faiss-gpu (the [gpu] extra) and a GPU")
def test_faiss_searches_on_the_gpu_and_matches_numpy():
    from memory.index import FaissIndex, IndexOptions

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((5000, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:8] + 0.01 * rng.standard_normal((8, 64)).astype(np.float32)
    index = FaissIndex(64, IndexOptions(use_gpu=True))
    index.add(np.arange(5000, dtype=np.int64), vectors)
    scores, ids = index.search(queries, 5)
    assert index._gpu is not None  # the search really ran on the GPU replica
    expected = np.argsort(-(queries @ vectors.T), axis=1)[:, :5]
    np.testing.assert_array_equal(ids, expected)
    _, ranged = index.search(queries, 5, id_range=(1000, 2000))
    assert ((ranged >= 1000) & (ranged < 2000)).all()


@pytest.mark.skipif(_ctranslate2_gpus() == 0, reason="needs a CUDA device CTranslate2 sees")
def test_whisper_runs_on_cuda():
    from memory.models.asr import WhisperTranscriber, whisper_device
    from memory.models.tts import EspeakSynthesizer

    assert whisper_device("auto")[0] == "cuda"
    asr = WhisperTranscriber(device="cuda")
    assert asr.device == "cuda"
    speech = EspeakSynthesizer().synthesize("The water cycle moves water around the planet.")
    words = asr.transcribe(speech.audio).text.lower()
    assert "water" in words
