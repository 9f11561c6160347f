"""Frames and positions per model family, built with PIL/numpy (no torchvision).

Above `base`/`images`/`hf_loading`. Each adapter knows its family's image placeholder
(what the chat template renders for an image part), turns one second's frames into
pixel tensors with the family's *PIL* image processor (transformers' fast and video
processors need torchvision, which has no CPU build here), expands each placeholder
to the right number of image tokens, and supplies the extra forward arguments. The
Qwen families use 3-D rotary positions (M-RoPE): `mrope_positions` computes them for a
new piece of context starting at any position, which is what lets a running KV cache
take one second at a time (the models' own ``get_rope_index`` assumes a whole prompt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from venus.backends.images import fit_within

__all__ = ["EncodedInputs", "QwenAdapter", "SmolVLMAdapter", "TextAdapter", "make_adapter",
           "mrope_positions"]


@dataclass
class EncodedInputs:
    """Model inputs for the frames (and audio) of one message, and the text each
    placeholder expands to: ``expansions`` per image, ``audio_expansions`` per audio."""

    expansions: list[str] = field(default_factory=list)
    tensors: dict[str, Any] = field(default_factory=dict)
    grids: list[tuple[int, int, int]] = field(default_factory=list)
    audio_expansions: list[str] = field(default_factory=list)


def mrope_positions(ids: list[int], image_token_id: int, grids: list[tuple[int, int, int]],
                    merge: int, start: int) -> tuple[np.ndarray, int]:
    """(3, len(ids)) temporal/height/width positions from ``start``, and the next start.

    Text advances all three by one per token; an image block of grid (t, h, w) patches
    sits at ``start`` + its (t, row, col) after merging, and advances by max(rows, cols).
    This is the rule of Qwen2-VL / Qwen2.5-VL / Qwen2.5-Omni ``get_rope_index`` for
    still images, applied from an arbitrary start.
    """
    out = np.zeros((3, len(ids)), np.int64)
    pending = iter(grids)
    pos, i = start, 0
    while i < len(ids):
        if ids[i] != image_token_id:
            out[:, i] = pos
            pos, i = pos + 1, i + 1
            continue
        t, h, w = next(pending)
        gh, gw = h // merge, w // merge
        n = t * gh * gw
        tt, hh, ww = np.meshgrid(np.arange(t), np.arange(gh), np.arange(gw), indexing="ij")
        out[:, i:i + n] = np.stack([tt.ravel(), hh.ravel(), ww.ravel()]) + pos
        pos, i = pos + max(gh, gw), i + n
    return out, pos


class TextAdapter:
    """A chat model without vision: frames are not sent (the words still are)."""

    family = "text"
    sees_images = False
    hears_audio = False
    image_token = audio_token = ""
    uses_mrope = False

    def encode(self, images: tuple[np.ndarray, ...], audio: np.ndarray | None = None
               ) -> EncodedInputs:
        return EncodedInputs()

    def forward_kwargs(self, ids: list[int], encoded: EncodedInputs) -> dict[str, Any]:
        return {}


class QwenAdapter:
    """Qwen2.5-VL / Qwen2-VL / Qwen2.5-Omni thinker: patch-flattened pixels + M-RoPE; the
    Omni thinker also hears: Whisper log-mel features of the second's audio."""

    sees_images = True
    uses_mrope = True

    def __init__(self, loaded, max_pixels: int) -> None:
        from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
            Qwen2VLImageProcessorPil,
        )

        cfg = loaded.model.config
        self.family = loaded.family
        vision = cfg.vision_config
        self.merge = int(vision.spatial_merge_size)
        self.image_token_id = int(_first(cfg, "image_token_id", "image_token_index"))
        self.image_token = loaded.tokenizer.convert_ids_to_tokens(self.image_token_id)
        factor = int(vision.patch_size) * self.merge
        self.processor = Qwen2VLImageProcessorPil(
            patch_size=int(vision.patch_size), merge_size=self.merge,
            temporal_patch_size=int(vision.temporal_patch_size),
            min_pixels=factor * factor, max_pixels=max(factor * factor, max_pixels))
        self.hears_audio = self.family == "omni" and hasattr(cfg, "audio_config")
        self.audio_token = ""
        if self.hears_audio:
            from transformers import WhisperFeatureExtractor

            self.audio_token = loaded.tokenizer.convert_ids_to_tokens(
                int(_first(cfg, "audio_token_id", "audio_token_index")))
            self.features = WhisperFeatureExtractor(
                feature_size=int(cfg.audio_config.num_mel_bins), sampling_rate=16_000)

    def encode(self, images: tuple[np.ndarray, ...], audio: np.ndarray | None = None
               ) -> EncodedInputs:
        out = EncodedInputs()
        if images:
            px = self.processor(images=[fit_within(im, 4096) for im in images],
                                return_tensors="pt")
            out.grids = [tuple(int(v) for v in g) for g in px["image_grid_thw"]]
            out.expansions = [self.image_token * (t * h * w // self.merge ** 2)
                              for t, h, w in out.grids]
            out.tensors.update(pixel_values=px["pixel_values"], image_grid_thw=px["image_grid_thw"])
        if self.hears_audio and audio is not None and len(audio):
            feats = self.features(audio, sampling_rate=16_000, padding="longest",
                                  return_attention_mask=True, return_tensors="pt")
            frames = int(feats["attention_mask"].sum())
            tokens = ((frames - 1) // 2 + 1 - 2) // 2 + 1  # the audio tower's two poolings
            out.audio_expansions = [self.audio_token * tokens]
            out.tensors.update(input_features=feats["input_features"],
                               feature_attention_mask=feats["attention_mask"])
        return out

    def forward_kwargs(self, ids: list[int], encoded: EncodedInputs) -> dict[str, Any]:
        import torch

        if self.family != "qwen_vl":
            return dict(encoded.tensors)
        types = torch.tensor([[1 if i == self.image_token_id else 0 for i in ids]])
        return {**encoded.tensors, "mm_token_type_ids": types}


def _first(config: Any, *names: str) -> Any:
    """The first of ``names`` the config has (checkpoints name the same id differently)."""
    for name in names:
        value = getattr(config, name, None)
        if value is not None:
            return value
    raise AttributeError(f"{type(config).__name__} has none of {names}")


class SmolVLMAdapter:
    """SmolVLM / Idefics3: one global image per frame (no tiling: one frame a second)."""

    family = "smolvlm"
    sees_images = True
    hears_audio = False
    audio_token = ""
    uses_mrope = False

    def __init__(self, loaded) -> None:
        from transformers.models.smolvlm.image_processing_pil_smolvlm import (
            SmolVLMImageProcessorPil,
        )

        cfg = loaded.model.config
        side = int(cfg.vision_config.image_size)
        patches = side // int(cfg.vision_config.patch_size)
        self.seq_len = int(patches * patches / (int(cfg.scale_factor) ** 2))
        tok = loaded.tokenizer
        self.image_token = tok.convert_ids_to_tokens(int(cfg.image_token_id))
        self.wrapper = "<fake_token_around_image>"
        self.global_token = "<global-img>"
        for needed in (self.wrapper, self.global_token):
            if needed not in tok.get_vocab():
                from venus.backends.base import BackendError

                raise BackendError(f"the SmolVLM tokenizer at {loaded.path} lacks {needed}; "
                                   f"pass the model's own tokenizer files")
        self.processor = SmolVLMImageProcessorPil(
            do_image_splitting=False, size={"longest_edge": side},
            max_image_size={"longest_edge": side})

    def encode(self, images: tuple[np.ndarray, ...], audio: np.ndarray | None = None
               ) -> EncodedInputs:
        if not images:
            return EncodedInputs()
        out = self.processor(images=[list(images)], return_tensors="pt")
        one = f"{self.wrapper}{self.global_token}{self.image_token * self.seq_len}{self.wrapper}"
        tensors = {"pixel_values": out["pixel_values"]}
        if "pixel_attention_mask" in out:
            tensors["pixel_attention_mask"] = out["pixel_attention_mask"]
        return EncodedInputs([one] * len(images), tensors)

    def forward_kwargs(self, ids: list[int], encoded: EncodedInputs) -> dict[str, Any]:
        return dict(encoded.tensors)


def make_adapter(loaded, max_pixels: int = 448 * 448):
    if loaded.family in ("qwen_vl", "omni"):
        return QwenAdapter(loaded, max_pixels)
    if loaded.family == "smolvlm":
        return SmolVLMAdapter(loaded)
    return TextAdapter()
