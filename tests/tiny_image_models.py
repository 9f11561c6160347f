"""Build tiny random-weight CLIP and SigLIP checkpoints on disk (for tests; nothing downloaded).

Not a test module: imported by the image-embedding tests. The configs are the real
classes, shrunk; the tokenizers are the real classes on a vocabulary made here (CLIP's
byte-level BPE alphabet with a few merges; a SentencePiece model trained on a few
sentences for SigLIP), and the image processors are the PIL ones a real checkpoint names.
"""

from __future__ import annotations

import io
from pathlib import Path

TOWER = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2)
IMAGE_SIZE = 32
CORPUS = ["a red car on the street", "a photo of a dog in the park", "the slide about plants",
          "a blue ocean under the sky", "a green forest at sunset", "what was on the screen"]


def build_tiny_clip(out: Path, seed: int = 0) -> Path:
    import torch
    from transformers import CLIPConfig, CLIPModel, CLIPTokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    alphabet = list(bytes_to_unicode().values())
    vocab = {c: i for i, c in enumerate(alphabet)}
    vocab.update({c + "</w>": len(alphabet) + i for i, c in enumerate(alphabet)})
    merges = [("r", "e"), ("re", "d</w>"), ("c", "a"), ("ca", "r</w>"), ("t", "h"), ("th", "e</w>")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    tokenizer = CLIPTokenizer(vocab=vocab, merges=merges)
    ids = {"bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id,
           "pad_token_id": tokenizer.pad_token_id}
    config = CLIPConfig(
        text_config=dict(vocab_size=len(vocab), max_position_embeddings=32, **TOWER, **ids),
        vision_config=dict(image_size=IMAGE_SIZE, patch_size=8, **TOWER), projection_dim=16)
    torch.manual_seed(seed)
    CLIPModel(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    CLIPImageProcessorPil(size={"shortest_edge": IMAGE_SIZE},
                          crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}).save_pretrained(out)
    return out


def build_tiny_siglip(out: Path, seed: int = 0) -> Path:
    import sentencepiece as spm
    import torch
    from transformers import SiglipConfig, SiglipModel, SiglipTokenizer
    from transformers.models.siglip.image_processing_pil_siglip import SiglipImageProcessorPil

    out.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS * 10), model_writer=model,
                                   vocab_size=48, hard_vocab_limit=False, model_type="unigram",
                                   character_coverage=1.0, minloglevel=2)
    (out / "spiece.model").write_bytes(model.getvalue())
    tokenizer = SiglipTokenizer(vocab_file=str(out / "spiece.model"))
    ids = {"bos_token_id": None, "eos_token_id": tokenizer.eos_token_id,
           "pad_token_id": tokenizer.pad_token_id}
    config = SiglipConfig(
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=16, **TOWER, **ids),
        vision_config=dict(image_size=IMAGE_SIZE, patch_size=8, **TOWER))
    torch.manual_seed(seed)
    SiglipModel(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    SiglipImageProcessorPil(size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}).save_pretrained(out)
    return out


BUILDERS = {"clip": build_tiny_clip, "siglip": build_tiny_siglip}
