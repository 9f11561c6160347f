"""Build a tiny random-weight Qwen2.5-VL checkpoint on disk (for tests; nothing downloaded).

Not a test module: imported by tests/test_memory_vlm.py. A word-level tokenizer with the
Qwen special tokens stands in for the real one; the config is the real class, shrunk.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>",
           "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
WORDS = ["the", "a", "picture", "shows", "slide", "text", "said", "at", "of", "and", "what", "is", "was", "on", "screen", "sunset", "ocean", "forest", "user", "assistant", "system", "describe", "this", "in", "one", "sentence", "question", "answer"]


def build_tiny_qwen_vl(out: Path) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (
        PreTrainedTokenizerFast,
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
    )
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
        Qwen2VLImageProcessorPil,
    )

    vocab = {t: i for i, t in enumerate(SPECIAL + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>",
                                   eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   additional_special_tokens=SPECIAL[2:])
    ids = {"eos_token_id": vocab["<|im_end|>"], "pad_token_id": vocab["<|endoftext|>"],
           "bos_token_id": vocab["<|endoftext|>"]}
    config = Qwen2_5_VLConfig(
        text_config=dict(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=2048,
                         rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]}, **ids),
        vision_config=dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2,
                           out_hidden_size=32, patch_size=14, spatial_merge_size=2,
                           temporal_patch_size=2, fullatt_block_indexes=[0], window_size=56,
                           in_chans=3),
        image_token_id=vocab["<|image_pad|>"], video_token_id=vocab["<|video_pad|>"],
        vision_start_token_id=vocab["<|vision_start|>"],
        vision_end_token_id=vocab["<|vision_end|>"], **ids)
    torch.manual_seed(0)
    Qwen2_5_VLForConditionalGeneration(config).save_pretrained(out)
    fast.save_pretrained(out)
    Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=112 * 112).save_pretrained(out)
    return out
