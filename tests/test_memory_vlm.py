"""TransformersVLM: a tiny random-weight Qwen2.5-VL saved to disk and loaded by the real
code path, as a Captioner, as an Answerer, and plugged into a VideoMemory."""

from __future__ import annotations

import numpy as np
import pytest
from memory_stream import LECTURE, build_stream, draw
from tiny_vlm import build_tiny_qwen_vl

from memory import ModelUnavailableError
from memory.captioner import Captioner, TransformersVLM, VLMOptions
from memory.evidence import Moment
from memory.models.base import Answerer
from memory.store import MemoryModels, StoreOptions, VideoMemory

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vlm(tmp_path_factory):
    path = build_tiny_qwen_vl(tmp_path_factory.mktemp("qwen") / "tiny")
    return TransformersVLM(path, VLMOptions(max_new_tokens=6, max_pixels=112 * 112))


def test_caption_and_answer_run_the_real_model(vlm):
    assert isinstance(vlm, Captioner) and isinstance(vlm, Answerer)
    image = draw("Photosynthesis")
    first = vlm.caption(image)
    assert isinstance(first, str) and first == vlm.caption(image)  # greedy: deterministic
    reply = vlm.answer("what was on the slide?", [Moment(1.0, 5.0, 0.9, "s", "we said this",
                                                         "Photosynthesis", None)])
    assert isinstance(reply, str) and reply


def test_missing_or_wrong_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelUnavailableError, match="no vision-language model"):
        TransformersVLM(tmp_path / "nothing").caption(np.zeros((8, 8, 3), np.uint8))
    from transformers import BertConfig

    BertConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=1,
               intermediate_size=8).save_pretrained(tmp_path / "bert")
    with pytest.raises(ModelUnavailableError, match="qwen2_5_vl"):
        TransformersVLM(tmp_path / "bert").caption(np.zeros((8, 8, 3), np.uint8))


def test_memory_captions_retrieved_key_frames_and_answers_with_the_vlm(tmp_path, vlm):
    chunks, _ = build_stream(LECTURE[:1])
    models = MemoryModels(captioner=vlm, answerer=vlm)
    mem = VideoMemory.create(tmp_path / "m", models=models)
    mem.ingest(chunks)
    assert not mem.db.keyframe(0).caption  # by default only retrieved frames are captioned
    reply = mem.answer("what is photosynthesis?")
    assert reply.citations and reply.citations[0].caption
    assert isinstance(reply.text, str) and reply.text
    eager = VideoMemory.create(tmp_path / "e", models=models,
                               options=StoreOptions(caption_at_ingest=True))
    eager.ingest(chunks)
    assert eager.db.keyframe(0).caption
    assert eager.search("picture", k=1)[0].text.endswith(eager.db.keyframe(0).caption)
