"""TransformersImageEmbedder: tiny random-weight CLIP and SigLIP checkpoints built from their
configs, saved with save_pretrained and loaded by the real path; the vectors are checked
against the model's own forward pass and searches against brute-force numpy."""

from __future__ import annotations

import numpy as np
import pytest
from memory_stream import draw
from tiny_image_models import BUILDERS, CORPUS

from memory import MissingExtraError, ModelUnavailableError
from memory.index import FaissIndex
from memory.models import ImageEmbedder, TransformersImageEmbedder


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def tiny(request, tmp_path_factory):
    path = BUILDERS[request.param](tmp_path_factory.mktemp(request.param) / "tiny")
    return request.param, path, TransformersImageEmbedder(path)


def pictures() -> list[np.ndarray]:
    colours = [(200, 30, 30), (30, 60, 200), (40, 160, 60), (240, 240, 230), (20, 20, 20)]
    out = [draw("", c, size=(64, 48)) for c in colours]
    out.append(draw("Plants", (245, 245, 240), size=(80, 40)))
    rng = np.random.default_rng(3)
    out += [rng.integers(0, 256, (36, 52, 3), dtype=np.uint8) for _ in range(4)]
    return out


def test_both_towers_give_unit_rows_in_one_space(tiny):
    family, _, embedder = tiny
    assert isinstance(embedder, ImageEmbedder) and embedder.family == family
    images, texts = embedder.embed_images(pictures()), embedder.embed_texts(CORPUS)
    assert images.shape == (10, embedder.dim) and texts.shape == (len(CORPUS), embedder.dim)
    assert images.dtype == texts.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(images, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(texts, axis=1), 1.0, atol=1e-5)
    assert embedder.embed_images([]).shape == (0, embedder.dim)
    with pytest.raises(TypeError, match="wrap one in a list"):
        embedder.embed_texts("a red car")


def test_similarities_match_the_models_own_forward_pass(tiny):
    """Our towers, normalised and multiplied, give the logits transformers' forward
    computes for the same inputs (CLIP: scale * cos; SigLIP: scale * cos + bias)."""
    import torch
    import transformers
    from transformers import AutoImageProcessor, AutoTokenizer

    family, path, embedder = tiny
    model = getattr(transformers, {"clip": "CLIPModel", "siglip": "SiglipModel"}[family]) \
        .from_pretrained(str(path)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    padding = {"clip": True, "siglip": "max_length"}[family]
    text = tokenizer(CORPUS, padding=padding, truncation=True, return_tensors="pt",
                     max_length=model.config.text_config.max_position_embeddings)
    pixels = AutoImageProcessor.from_pretrained(str(path), backend="pil")(
        images=pictures(), return_tensors="pt")["pixel_values"]
    inputs = {"input_ids": text["input_ids"], "pixel_values": pixels}
    if family == "clip":
        inputs["attention_mask"] = text["attention_mask"]
    with torch.inference_mode():
        logits = model(**inputs).logits_per_image.numpy()
    ours = embedder.embed_images(pictures()) @ embedder.embed_texts(CORPUS).T
    scale = float(model.logit_scale.detach().exp())
    bias = float(model.logit_bias.detach()) if family == "siglip" else 0.0
    np.testing.assert_allclose(scale * ours + bias, logits, rtol=1e-4, atol=1e-4)


def test_batches_and_input_kinds_give_the_same_vectors(tiny, tmp_path):
    from PIL import Image

    family, path, embedder = tiny
    images = pictures()
    one_by_one = TransformersImageEmbedder(path, batch_size=1)
    np.testing.assert_allclose(one_by_one.embed_images(images), embedder.embed_images(images),
                               atol=1e-5)
    np.testing.assert_allclose(one_by_one.embed_texts(CORPUS), embedder.embed_texts(CORPUS),
                               atol=1e-5)
    Image.fromarray(images[0]).save(tmp_path / "red.png")
    grey = np.full((20, 30), 128, np.uint8)
    mixed = embedder.embed_images([Image.fromarray(images[0]), str(tmp_path / "red.png"),
                                   grey, np.dstack([grey] * 3)])
    np.testing.assert_allclose(mixed[0], mixed[1], atol=1e-6)
    np.testing.assert_allclose(mixed[2], mixed[3], atol=1e-6)


def test_text_search_over_pictures_matches_brute_force_numpy(tiny):
    _, _, embedder = tiny
    rng = np.random.default_rng(7)
    frames = pictures() + [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(30)]
    vectors = embedder.embed_images(frames)
    index = FaissIndex(embedder.dim)
    index.add(np.arange(len(frames)) * 3, vectors)  # ids as the store gives them: gaps
    queries = embedder.embed_texts(CORPUS)
    scores, ids = index.search(queries, 5, id_range=(0, 60))
    sims = queries @ vectors[:20].T  # ids below 60 are the first 20 frames
    order = np.argsort(-sims, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(ids, order * 3)
    np.testing.assert_allclose(scores, np.take_along_axis(sims, order, axis=1), atol=1e-5)


def test_missing_or_wrong_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelUnavailableError, match="no image-text model at .*CLIP or SigLIP"):
        TransformersImageEmbedder(tmp_path / "nothing")
    from transformers import BertConfig

    BertConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=1,
               intermediate_size=8).save_pretrained(tmp_path / "bert")
    with pytest.raises(ModelUnavailableError, match="'bert' model.*CLIP and SigLIP"):
        TransformersImageEmbedder(tmp_path / "bert")


def test_an_incomplete_checkpoint_names_what_is_missing(tmp_path):
    path = BUILDERS["clip"](tmp_path / "clip")
    (path / "preprocessor_config.json").unlink()
    with pytest.raises((ModelUnavailableError, MissingExtraError), match="complete checkpoint"):
        TransformersImageEmbedder(path)
