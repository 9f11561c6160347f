"""Tiny random-weight models for trying the model frontends without any real weights.

Behaviour layer of `venus.notebook`. `build_tiny_model(path, family)` writes a
checkpoint of a real Hugging Face architecture, shrunk to one layer and a hidden size of
32, with a small word-level tokenizer and a chat template in the family's style, by
``save_pretrained``; the real loading code (`venus.backends.TransformersBackend`, or
`venus.frontend.transformers.TransformersFrontend`) then reads it like any local model.
Nothing is downloaded. The model runs every real step (frames in, control token out,
a short reply) but, being untrained, its choices and words are noise: a real model
changes what it decides, not how it plugs in.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["TINY_FAMILIES", "build_tiny_model"]

TINY_FAMILIES = ("qwen_vl", "smolvlm", "omni", "text")
"""Qwen2.5-VL, SmolVLM, the Qwen2.5-Omni thinker (hears audio too), a text-only chat model."""

_CORPUS = [
    "what is on the slide", "the slide shows a red square", "can you explain this please",
    "hello there how are you", "the lecture is about photosynthesis", "yes I see",
    "user silence your own voice is playing note", "you are a live assistant that sees",
    "listen silently speak now end of turn", "answer every second with one control token",
]
_HIDDEN = 32
_CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n"
           "{% if m['content'] is string %}{{ m['content'] }}{% else %}"
           "{% for p in m['content'] %}{% if p['type'] == 'image' %}IMAGE_MARKUP"
           "{% elif p['type'] == 'audio' %}<|audio_bos|><|AUDIO|><|audio_eos|>"
           "{% elif p['type'] == 'text' %}{{ p['text'] }}{% endif %}{% endfor %}{% endif %}"
           "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n"
           "{% endif %}")
_SMOLVLM = ("<|im_start|>{% for m in messages %}{{ m['role'] | capitalize }}"
            "{% if m['content'][0]['type'] == 'image' %}:{% else %}: {% endif %}"
            "{% for p in m['content'] %}{% if p['type'] == 'text' %}{{ p['text'] }}"
            "{% elif p['type'] == 'image' %}<image>{% endif %}{% endfor %}<end_of_utterance>\n"
            "{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}")
_MROPE = {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                              "mrope_section": [1, 1, 2]}}
_QWEN_VISION = {"depth": 1, "hidden_size": _HIDDEN, "intermediate_size": 64, "num_heads": 4,
                "out_hidden_size": _HIDDEN, "patch_size": 14, "spatial_merge_size": 2,
                "temporal_patch_size": 2, "window_size": 56, "fullatt_block_indexes": [0]}


def build_tiny_model(path: str | Path, family: str = "qwen_vl", seed: int = 0) -> Path:
    """Write a tiny random-weight ``family`` checkpoint (see `TINY_FAMILIES`) to ``path``."""
    builders = {"qwen_vl": _qwen_vl, "smolvlm": _smolvlm, "omni": _omni, "text": _text}
    if family not in builders:
        raise ValueError(f"unknown family {family!r}; choose one of {', '.join(TINY_FAMILIES)}")
    import torch

    out = Path(path)
    torch.manual_seed(seed)
    model, tokenizer = builders[family]()
    model.eval()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def _tokenizer(specials: list[str], template: str):
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok.train_from_iterator(_CORPUS, trainers.WordLevelTrainer(special_tokens=["<unk>", *specials]))
    tok.decoder = decoders.WordPiece()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<unk>", eos_token=specials[1],
        additional_special_tokens=list(specials))
    fast.chat_template = template
    return fast


def _text_config(vocab: int, **extra) -> dict:
    return dict(vocab_size=vocab, hidden_size=_HIDDEN, intermediate_size=64, num_hidden_layers=1,
                num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                bos_token_id=2, eos_token_id=2, **extra)


def _qwen_vl():
    import transformers

    tok = _tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|vision_start|>",
                      "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"],
                     _CHATML.replace("IMAGE_MARKUP", "<|vision_start|><|image_pad|><|vision_end|>"))
    ids = tok.convert_tokens_to_ids
    config = transformers.Qwen2_5_VLConfig(
        text_config=_text_config(len(tok), **_MROPE), vision_config=_QWEN_VISION,
        image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"), vision_end_token_id=ids("<|vision_end|>"))
    return transformers.Qwen2_5_VLForConditionalGeneration(config), tok


def _omni():
    import transformers

    tok = _tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|vision_bos|>",
                      "<|vision_eos|>", "<|IMAGE|>", "<|VIDEO|>", "<|AUDIO|>", "<|audio_bos|>",
                      "<|audio_eos|>"],
                     _CHATML.replace("IMAGE_MARKUP", "<|vision_bos|><|IMAGE|><|vision_eos|>"))
    ids = tok.convert_tokens_to_ids
    config = transformers.Qwen2_5OmniThinkerConfig(
        audio_config={"num_mel_bins": 16, "encoder_layers": 1, "encoder_attention_heads": 2,
                      "encoder_ffn_dim": 32, "d_model": 16, "output_dim": _HIDDEN,
                      "max_source_positions": 64, "n_window": 8},
        vision_config=_QWEN_VISION, text_config=_text_config(len(tok), **_MROPE),
        image_token_index=ids("<|IMAGE|>"), video_token_index=ids("<|VIDEO|>"),
        audio_token_index=ids("<|AUDIO|>"), audio_start_token_id=ids("<|audio_bos|>"),
        audio_end_token_id=ids("<|audio_eos|>"), vision_start_token_id=ids("<|vision_bos|>"),
        vision_end_token_id=ids("<|vision_eos|>"))
    return transformers.Qwen2_5OmniThinkerForConditionalGeneration(config), tok


def _smolvlm():
    import transformers

    tok = _tokenizer(["<|im_start|>", "<end_of_utterance>", "<|endoftext|>", "<image>",
                      "<fake_token_around_image>", "<global-img>"], _SMOLVLM)
    config = transformers.SmolVLMConfig(
        vision_config={"hidden_size": _HIDDEN, "intermediate_size": 64, "num_hidden_layers": 1,
                       "num_attention_heads": 4, "image_size": 32, "patch_size": 8},
        text_config=dict(model_type="llama", **_text_config(len(tok))),
        image_token_id=tok.convert_tokens_to_ids("<image>"), scale_factor=2)
    return transformers.SmolVLMForConditionalGeneration(config), tok


def _text():
    import transformers

    tok = _tokenizer(["<|im_start|>", "<|im_end|>", "<|endoftext|>"],
                     _CHATML.replace("IMAGE_MARKUP", ""))
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**_text_config(len(tok)))), tok
