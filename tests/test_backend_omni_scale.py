"""The Qwen2.5-Omni thinker per-chunk step at two scales, with random weights.

``tiny`` runs everywhere (the code path); ``7b`` builds the full-size thinker (the
Qwen2.5-Omni-7B shapes) in bf16 on a CUDA GPU and times 60 one-second steps (a
448x448 frame + one second of audio + words appended, control decision only:
``<|listen|>`` is forced so no reply generation is timed), printing p50/p95. It skips
without CUDA. Run it alone on a GPU machine: ``pytest tests/test_backend_omni_scale.py -s``.
No checkpoint is needed: the model is built from its config and the tokenizer is a
word-level one whose special tokens sit at the real Qwen ids.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest
import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers

from venus.backends import ChunkInput
from venus.backends.hf_loading import wrap_model
from venus.backends.transformers_model import TransformersBackend, TransformersConfig
from venus.events import ControlToken

pytestmark = pytest.mark.slow

WORDS = ["user", "silence", "your", "own", "voice", "is", "playing", "note", "what", "is", "on", "the", "slide", "can", "you", "explain", "this", "you", "are", "a", "live", "assistant", "listen", "speak", "end", "of", "turn"]
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
    "{% for p in m['content'] %}{% if p['type'] == 'image' %}<|vision_bos|><|IMAGE|><|vision_eos|>"
    "{% elif p['type'] == 'audio' %}<|audio_bos|><|AUDIO|><|audio_eos|>"
    "{% else %}{{ p['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")

SEVEN_B = {  # Qwen2.5-Omni-7B thinker shapes
    "text_config": {"vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944,
                    "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 1e6,
                                        "mrope_section": [16, 24, 24]}},
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420,
                      "num_heads": 16, "out_hidden_size": 3584,
                      "fullatt_block_indexes": [7, 15, 23, 31]},
    "audio_config": {"d_model": 1280, "encoder_layers": 32, "encoder_attention_heads": 20,
                     "encoder_ffn_dim": 5120, "num_mel_bins": 128, "output_dim": 3584},
    "image_token_index": 151655, "video_token_index": 151656, "audio_token_index": 151646,
    "audio_start_token_id": 151647, "audio_end_token_id": 151648,
    "vision_start_token_id": 151652, "vision_end_token_id": 151653,
}
TINY = {
    "text_config": {"vocab_size": 96, "hidden_size": 32, "intermediate_size": 64,
                    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 1e6,
                                        "mrope_section": [1, 1, 2]}},
    "vision_config": {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 4,
                      "out_hidden_size": 32, "fullatt_block_indexes": [0]},
    "audio_config": {"d_model": 16, "encoder_layers": 1, "encoder_attention_heads": 2,
                     "encoder_ffn_dim": 32, "num_mel_bins": 128, "output_dim": 32},
    "image_token_index": 80, "video_token_index": 81, "audio_token_index": 82,
    "audio_start_token_id": 83, "audio_end_token_id": 84,
    "vision_start_token_id": 85, "vision_end_token_id": 86,
}
_SPECIAL_IDS = {"image_token_index": "<|IMAGE|>", "video_token_index": "<|VIDEO|>",
                "audio_token_index": "<|AUDIO|>", "audio_start_token_id": "<|audio_bos|>",
                "audio_end_token_id": "<|audio_eos|>", "vision_start_token_id": "<|vision_bos|>",
                "vision_end_token_id": "<|vision_eos|>"}


def filled_tokenizer(shape: dict):
    """Word-level tokenizer with every special token at the id the config expects."""
    fixed = {shape[key]: token for key, token in _SPECIAL_IDS.items()}
    rest = iter(["<unk>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", *WORDS])
    size = max(fixed) + 4  # a few free ids above the specials (room for control tokens)
    vocab = {}
    for i in range(size):
        vocab[fixed.get(i) or next(rest, f"w{i}")] = i
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", *_SPECIAL_IDS.values()]
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", eos_token="<|im_end|>",
        additional_special_tokens=specials)
    fast.chat_template = TEMPLATE
    return fast


@pytest.mark.parametrize("scale", [
    "tiny",
    pytest.param("7b", marks=pytest.mark.skipif(not torch.cuda.is_available(),
                                                reason="the full-size thinker needs a CUDA GPU")),
])
def test_omni_thinker_per_chunk_step(scale, capsys):
    shape, device = (TINY, "cpu") if scale == "tiny" else (SEVEN_B, "cuda")
    dtype = torch.float32 if device == "cpu" else torch.bfloat16
    config = transformers.Qwen2_5OmniThinkerConfig(**shape)
    tok = filled_tokenizer(shape)
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.Qwen2_5OmniThinkerForConditionalGeneration._from_config(
            config, dtype=dtype)
    backend = TransformersBackend(
        TransformersConfig("(random weights)", device=device, max_context_tokens=65536,
                           control_bias={ControlToken.LISTEN.value: 1e4}),
        loaded=wrap_model(model, tok))
    rng = np.random.default_rng(0)
    steps = 60 if scale == "7b" else 3
    times = []
    for i in range(steps + 2):  # two warm-up steps
        frame = rng.integers(0, 255, (448, 448, 3), dtype=np.uint8)
        audio = (0.1 * rng.standard_normal(16_000)).astype(np.float32)
        decision = backend.decide(ChunkInput(float(i), i + 1.0, (frame,), "what is on the slide",
                                             audio=audio))
        if device == "cuda":
            torch.cuda.synchronize()
        assert decision.token is ControlToken.LISTEN
        if i >= 2:
            times.append(decision.latency_s * 1000)
    assert backend.rebuilds == 0 and backend.context_tokens > 300 * steps
    q = statistics.quantiles(times, n=20) if len(times) >= 20 else [max(times)] * 19
    with capsys.disabled():
        print(f"\n[omni thinker {scale} {device} {dtype}] {steps} steps: "
              f"p50 {statistics.median(times):.1f} ms, p95 {q[18]:.1f} ms, "
              f"context {backend.context_tokens} tokens")
