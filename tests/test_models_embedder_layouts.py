"""The embedder reads sentence-transformers directories faithfully: tiny random models of
each module layout (pooling modes, Dense, Normalize, prompts, include_prompt, lower case,
old and new config styles) give the vectors of `SentenceTransformer.encode` with
``normalize_embeddings=True``. sentence-transformers is only the reference here: the
embedder never imports it."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pytest

from memory.models import MiniLMEmbedder

st = pytest.importorskip("sentence_transformers", reason="the reference (dev extra)")

WORDS = ("[PAD] [UNK] [CLS] [SEP] [MASK] the a plants turn light into sugar water falls as "
         "rain query passage : represent this sentence for searching code secret purple").split()
TEXTS = ["Plants turn light into sugar.", "the water falls as rain", "secret code purple",
         "Represent this sentence"]


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = tmp_path_factory.mktemp("bert")
    (root / "vocab.txt").write_text("\n".join(WORDS))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(WORDS), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    BertModel(config).save_pretrained(root / "model")
    BertTokenizerFast(vocab_file=str(root / "vocab.txt")).save_pretrained(root / "model")
    return root / "model"


def _modules():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from sentence_transformers.sentence_transformer import modules
    return modules


def _save(encoder_dir, path, pooling, dense=(), normalize=False, **st_kwargs):
    import torch

    m = _modules()
    torch.manual_seed(1)
    layers = [m.Transformer(str(encoder_dir), max_seq_length=32), pooling]
    width = (pooling.get_embedding_dimension() if hasattr(type(pooling), "get_embedding_dimension")
             else pooling.get_sentence_embedding_dimension())  # sentence-transformers < 6
    for out, activation in dense:
        layers.append(m.Dense(width, out, activation_function=activation))
        width = out
    if normalize:
        layers.append(m.Normalize())
    model = st.SentenceTransformer(modules=layers, **st_kwargs)
    model.save(str(path))
    return st.SentenceTransformer(str(path), local_files_only=True)


def _layouts(m, torch):
    return {
        "mean+normalize (all-MiniLM)": (m.Pooling(16, "mean"), (), True, {}),
        "cls+dense tanh+normalize (LaBSE)": (m.Pooling(16, "cls"), ((8, torch.nn.Tanh()),), True, {}),
        "mean+dense, no normalize (distiluse)": (m.Pooling(16, "mean"), ((12, torch.nn.Tanh()),),
                                                 False, {}),
        "mean with prompts (e5)": (m.Pooling(16, "mean"), (), True,
                                   {"prompts": {"query": "query: ", "passage": "passage: "},
                                    "default_prompt_name": "query"}),
        "cls without the prompt (instruction models)": (
            m.Pooling(16, "cls", include_prompt=False), (), True,
            {"prompts": {"query": "represent this sentence for searching : "},
             "default_prompt_name": "query"}),
        "max, weightedmean, lasttoken, mean_sqrt_len together": (
            m.Pooling(16, ["max", "weightedmean", "lasttoken", "mean_sqrt_len_tokens"]),
            ((10, torch.nn.Identity()),), False, {}),
    }


LAYOUT_NAMES = ("mean+normalize (all-MiniLM)", "cls+dense tanh+normalize (LaBSE)",
                "mean+dense, no normalize (distiluse)", "mean with prompts (e5)",
                "cls without the prompt (instruction models)",
                "max, weightedmean, lasttoken, mean_sqrt_len together")


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_each_layout_matches_sentence_transformers(name, encoder_dir, tmp_path):
    import torch

    pooling, dense, normalize, kwargs = _layouts(_modules(), torch)[name]
    reference = _save(encoder_dir, tmp_path / "st", pooling, dense, normalize, **kwargs)
    ours = MiniLMEmbedder(model_path=str(tmp_path / "st"))
    expected = reference.encode(TEXTS, normalize_embeddings=True)
    np.testing.assert_allclose(ours.embed(TEXTS), expected, atol=1e-5)
    assert ours.dim == expected.shape[1]
    for prompt_name in kwargs.get("prompts", {}):
        np.testing.assert_allclose(
            ours.embed(TEXTS, prompt_name=prompt_name),
            reference.encode(TEXTS, prompt_name=prompt_name, normalize_embeddings=True), atol=1e-5)


def test_old_style_pooling_flags_and_lower_case(encoder_dir, tmp_path):
    import torch

    m = _modules()
    reference = _save(encoder_dir, tmp_path / "st", m.Pooling(16, ["cls", "mean"]),
                      ((8, torch.nn.Tanh()),), True)
    expected = reference.encode([t.lower() for t in TEXTS], normalize_embeddings=True)
    (tmp_path / "st" / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": 16, "pooling_mode_cls_token": True,
        "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False}))
    (tmp_path / "st" / "sentence_bert_config.json").write_text(json.dumps({
        "max_seq_length": 32, "do_lower_case": True}))
    ours = MiniLMEmbedder(model_path=str(tmp_path / "st"))
    np.testing.assert_allclose(ours.embed([t.upper() for t in TEXTS]), expected, atol=1e-5)


def test_an_unknown_module_is_refused_by_name(encoder_dir, tmp_path):
    from memory.errors import ModelUnavailableError

    m = _modules()
    _save(encoder_dir, tmp_path / "st", m.Pooling(16, "mean"))
    modules = json.loads((tmp_path / "st" / "modules.json").read_text())
    modules.append({"idx": 2, "name": "2", "path": "2_LayerNorm",
                    "type": "sentence_transformers.models.LayerNorm"})
    (tmp_path / "st" / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ModelUnavailableError, match="LayerNorm"):
        MiniLMEmbedder(model_path=str(tmp_path / "st"))


def test_the_embedder_never_imports_sentence_transformers(encoder_dir, tmp_path):
    import subprocess

    code = (f"import sys; from memory.models import MiniLMEmbedder; "
            f"MiniLMEmbedder(model_path={str(encoder_dir)!r}).embed(['a']); "
            f"print('sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
