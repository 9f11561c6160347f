"""TransformersBackend on tiny random-weight models of each supported family.

Each model is built from its config by `venus.notebook.build_tiny_model` (1 layer, hidden
size 32, a word-level tokenizer with the family's special tokens and chat template),
saved with save_pretrained to tmp_path, then loaded through the real loading code (local
path only) and runs real steps: one second with a frame and words -> a control decision,
and a short generation.
Nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from venus.backends import BackendDecision, ChunkInput
from venus.backends.hf_loading import detect_family, load_model
from venus.backends.hf_vision import mrope_positions
from venus.backends.transformers_model import TransformersBackend, TransformersConfig
from venus.errors import ConfigError
from venus.events import ControlToken
from venus.notebook import TINY_FAMILIES, build_tiny_model

pytestmark = pytest.mark.slow

BUILDERS = TINY_FAMILIES  # every family gets the same tests


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-models")
    out = {}
    for family in TINY_FAMILIES:
        out[family] = build_tiny_model(root / family, family)
    return out


def _audio(seed: int = 0) -> np.ndarray:
    return (0.1 * np.random.default_rng(seed).standard_normal(16_000)).astype(np.float32)


def _frame(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)


@pytest.mark.parametrize("family", list(BUILDERS))
def test_family_is_detected_from_config_json(model_dirs, family):
    config = json.loads((model_dirs[family] / "config.json").read_text())
    assert detect_family(config) == family


@pytest.mark.parametrize("family", list(BUILDERS))
def test_one_real_step_per_architecture(model_dirs, family):
    backend = TransformersBackend(TransformersConfig(str(model_dirs[family]), max_new_tokens=4))
    assert backend.family == family
    tok = backend.loaded.tokenizer
    for token in ControlToken:  # added as single special tokens
        assert tok.convert_ids_to_tokens(tok.convert_tokens_to_ids(token.value)) == token.value

    times = []
    first = backend.decide(ChunkInput(0.0, 1.0, (_frame(0),), "what is on the slide",
                                      audio=_audio(0)))
    assert isinstance(first, BackendDecision) and first.token in ControlToken
    assert set(first.scores) == {t.value for t in ControlToken}
    assert first.token.value == max(first.scores, key=first.scores.get)  # constrained choice
    after_first = backend.context_tokens
    assert after_first > 0
    for i in range(1, 4):
        d = backend.decide(ChunkInput(float(i), i + 1.0, (_frame(i),), "yes I see",
                                      audio=_audio(i)))
        times.append(d.latency_s)
        assert d.token in ControlToken
    assert backend.context_tokens > after_first  # the cache grew: one second at a time
    assert all(t > 0 for t in times)

    backend.reset()
    assert backend.context_tokens == 0


@pytest.mark.parametrize("family", ["omni", "qwen_vl"])
def test_incremental_cache_matches_a_full_pass(model_dirs, family):
    """Two seconds fed one at a time through the cache give the same logits as the whole
    context in one pass with the model's own rope index: positions and cache are right."""
    backend = TransformersBackend(TransformersConfig(str(model_dirs[family])))
    chunks = [ChunkInput(0.0, 1.0, (_frame(0),), "what is on the slide", audio=_audio(0)),
              ChunkInput(1.0, 2.0, (_frame(1),), "can you explain this", audio=_audio(1))]
    decisions = [backend.decide(c) for c in chunks]
    prompt = "<|im_start|>assistant\n"  # the decision is made here; a reply may follow
    fed_text = backend._fed[:backend._fed.rindex(prompt) + len(prompt)]
    full = TransformersBackend(TransformersConfig(str(model_dirs[family])), loaded=backend.loaded)
    images = [c.images[0] for c in chunks]
    encoded = full._adapter.encode(tuple(images), None)
    if family == "omni":  # the thinker hears too: both seconds' audio, one placeholder each
        assert "<|AUDIO|>" in fed_text
        per_second = [full._adapter.encode((), c.audio) for c in chunks]
        encoded.audio_expansions = [e.audio_expansions[0] for e in per_second]
        feats = [e.tensors for e in per_second]
        encoded.tensors["input_features"] = torch.cat([f["input_features"] for f in feats])
        encoded.tensors["feature_attention_mask"] = torch.cat(
            [f["feature_attention_mask"] for f in feats])
    ids = full.loaded.tokenizer(full._expand(fed_text, encoded), add_special_tokens=False).input_ids
    model = full.loaded.model
    input_ids = torch.tensor([ids])
    if family == "qwen_vl":
        types = torch.tensor([[int(i == full._adapter.image_token_id) for i in ids]])
        ref_pos, _ = model.model.get_rope_index(input_ids, types, encoded.tensors["image_grid_thw"])
    else:
        ref_pos, _ = model.model.get_rope_index(
            input_ids, encoded.tensors["image_grid_thw"], None, torch.ones_like(input_ids),
            False, encoded.tensors["feature_attention_mask"].sum(-1))
    mine, _ = mrope_positions(ids, full._adapter.image_token_id, encoded.grids, full._adapter.merge, 0)
    assert np.array_equal(ref_pos[:, 0].numpy(), mine)
    with torch.inference_mode():
        logits = model(input_ids=input_ids, position_ids=ref_pos, **encoded.tensors).logits[0, -1]
    control = [full._control[t] for t in ControlToken]
    expected = {t.value: float(logits[i]) for t, i in zip(ControlToken, control)}
    assert decisions[-1].scores == pytest.approx(expected, abs=1e-4)


def test_missing_model_path_names_it(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ConfigError, match=f"{missing} does not exist.*model_path="):
        load_model(missing)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="has no config.json"):
        load_model(tmp_path / "empty")


def test_incomplete_or_bad_model_dirs_are_config_errors(model_dirs, tmp_path):
    weightless = tmp_path / "weightless"
    weightless.mkdir()
    (weightless / "config.json").write_text((model_dirs["text"] / "config.json").read_text())
    with pytest.raises(ConfigError, match=f"could not load the model at {weightless}"):
        load_model(weightless)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_model(broken)
    with pytest.raises(ConfigError, match="^dtype 'float8' is not supported"):
        load_model(model_dirs["text"], dtype="float8")


def test_context_overflow_rebuilds_from_recent_text(model_dirs):
    budget, reply = 360, 4
    backend = TransformersBackend(TransformersConfig(
        str(model_dirs["qwen_vl"]), max_context_tokens=budget, keep_chunks=1,
        max_new_tokens=reply))
    rebuilt = 0
    for i in range(8):
        before = backend.context_tokens
        backend.decide(ChunkInput(float(i), i + 1.0, (_frame(i),), "the slide shows a red square"))
        rebuilt += backend.context_tokens < before
        assert rebuilt == backend.rebuilds
        assert backend.context_tokens <= budget + 1 + reply  # a reply may run past the budget
    assert rebuilt >= 1
    assert len(backend._messages) < 1 + 2 * 8  # older seconds were dropped


def test_transformers_frontend_in_a_session(model_dirs):
    from venus.clock import SimulatedClock
    from venus.events import ControlTokenEmitted
    from venus.frontend import Frontend
    from venus.frontend.transformers import TransformersFrontend
    from venus.perception import UserPerception
    from venus.runtime import DuplexIO, Session, SessionOptions
    from venus.testing import FakeVideoSource

    frontend = TransformersFrontend(
        TransformersConfig(str(model_dirs["smolvlm"]), max_new_tokens=3))
    assert isinstance(frontend, Frontend)
    with Session(frontend, FakeVideoSource(4, size=(64, 48), has_audio=True),
                 clock=SimulatedClock(), duplex=DuplexIO(perception=UserPerception(faces=False)),
                 options=SessionOptions(drain_s=0.0)) as session:
        session.run()
    recorded = [e.token for e in session.timeline.events(ControlTokenEmitted)]
    assert recorded == [d.token for d in frontend.decisions] and len(recorded) == 4


def test_whitespace_only_template_differences_keep_the_cache(model_dirs):
    """SmolVLM's template writes "Assistant: <|speak|>..." after a generation prompt of
    "Assistant:": after a spoken reply the context must continue, not be rebuilt."""
    speak = {ControlToken.SPEAK.value: 1e4}  # force <|speak|>: the weights are random
    backend = TransformersBackend(TransformersConfig(str(model_dirs["smolvlm"]), max_new_tokens=3,
                                                     control_bias=speak))
    first = backend.decide(ChunkInput(0.0, 1.0, (_frame(0),), "hello there"))
    assert first.token is ControlToken.SPEAK
    before = backend.context_tokens
    backend.decide(ChunkInput(1.0, 2.0, (_frame(1),), "yes I see"))
    assert backend.context_tokens > before and backend.rebuilds == 0  # appended, not rebuilt


@pytest.mark.parametrize("family", list(BUILDERS))
def test_spoken_replies_continue_the_cached_context(model_dirs, family):
    backend = TransformersBackend(TransformersConfig(
        str(model_dirs[family]), max_new_tokens=4,
        control_bias={ControlToken.SPEAK.value: 1e4}))
    for i in range(3):
        d = backend.decide(ChunkInput(float(i), i + 1.0, (_frame(i),), "yes I see",
                                      audio=_audio(i)))
        assert d.token is ControlToken.SPEAK and isinstance(d.text, str)
        assert "<|" not in d.text  # markup never leaks into speech
    assert backend.rebuilds == 0
