"""Generative seams: a `Captioner` for key frames and a VLM `Answerer`, from a local path.

`TransformersVLM` loads a Qwen2.5-VL (or Qwen2-VL) checkpoint from a local directory with
transformers, lazily on first use, and never downloads. Pixels are prepared by
transformers' PIL image processor (numpy + Pillow; no torchvision, which has no CPU
build here). It implements both Protocols: ``caption(image)`` describes a key frame so a
scene without text can be found, ``answer(question, moments, recent)`` writes a reply
from the retrieved moments (their times, speech and slide text, and key-frame pictures).
The store calls it only for retrieved moments, so an hour of video costs a few calls.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.evidence import Moment
from memory.models.base import Captioner

__all__ = ["Captioner", "TransformersVLM", "VLMOptions"]

logger = logging.getLogger(__name__)

_FAMILIES = ("qwen2_5_vl", "qwen2_vl")


@dataclass
class VLMOptions:
    """``max_pixels`` bounds the vision tokens per picture (28x28 pixels per token after
    merging); ``max_images``: key frames shown with an answer."""

    max_new_tokens: int = 64
    caption_prompt: str = "Describe this picture in one short sentence."
    system: str = ("You answer questions about a video from the moments retrieved from "
                   "memory. Cite times as m:ss. Say so if the moments do not contain the answer.")
    max_pixels: int = 448 * 448
    min_pixels: int = 56 * 56
    max_images: int = 2
    device: str = "cpu"


class _Loaded:
    def __init__(self, path: Path, options: VLMOptions) -> None:
        from transformers import AutoConfig, AutoModelForImageTextToText, AutoTokenizer
        from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
            Qwen2VLImageProcessorPil,
        )

        config = AutoConfig.from_pretrained(str(path), local_files_only=True)
        if config.model_type not in _FAMILIES:
            raise ModelUnavailableError(
                f"{path} holds a {config.model_type!r} model; TransformersVLM reads "
                f"{', '.join(_FAMILIES)} checkpoints (for example Qwen2.5-VL-3B-Instruct)")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.images = Qwen2VLImageProcessorPil.from_pretrained(
            str(path), local_files_only=True, max_pixels=options.max_pixels,
            min_pixels=options.min_pixels)
        self.model = AutoModelForImageTextToText.from_pretrained(
            str(path), local_files_only=True).eval().to(options.device)
        self.merge = int(getattr(config.vision_config, "spatial_merge_size", 2))
        self.lock = threading.Lock()


class TransformersVLM:
    """A Qwen2.5-VL family model from ``model_path``; loaded on first use."""

    def __init__(self, model_path: str | Path, options: VLMOptions | None = None) -> None:
        self.model_path = Path(model_path).expanduser()
        self.options = options or VLMOptions()
        self._loaded: _Loaded | None = None

    def _get(self) -> _Loaded:
        if self._loaded is None:
            if not (self.model_path / "config.json").is_file():
                raise ModelUnavailableError(
                    f"no vision-language model at {self.model_path}; pass the directory of a "
                    f"downloaded Qwen2.5-VL checkpoint (models are never downloaded at run time)")
            try:
                self._loaded = _Loaded(self.model_path, self.options)
            except (OSError, ValueError) as exc:
                raise ModelUnavailableError(
                    f"could not load the vision-language model at {self.model_path} ({exc}); "
                    f"pass a complete local checkpoint directory") from exc
        return self._loaded

    def caption(self, image: np.ndarray) -> str:
        return self.generate(self.options.caption_prompt, [image])

    def answer(self, question: str, moments: Sequence[Moment],
               recent: Moment | None = None) -> str:
        pictures = [_read(m.keyframe) for m in moments if m.keyframe][: self.options.max_images]
        context = "\n".join(_describe(m) for m in [*moments, *([recent] if recent else [])])
        prompt = f"Moments from memory:\n{context}\nQuestion: {question}"
        return self.generate(prompt, [p for p in pictures if p is not None])

    def generate(self, prompt: str, images: Sequence[np.ndarray] = ()) -> str:
        """Greedy reply to ``prompt`` with ``images`` shown before it."""
        import torch

        vlm = self._get()
        with vlm.lock, torch.inference_mode():
            inputs = self._inputs(vlm, prompt, images)
            out = vlm.model.generate(**inputs, max_new_tokens=self.options.max_new_tokens,
                                     do_sample=False)
            new = out[0, inputs["input_ids"].shape[1]:]
            return vlm.tokenizer.decode(new, skip_special_tokens=True).strip()

    def _inputs(self, vlm: _Loaded, prompt: str, images: Sequence[np.ndarray]) -> dict[str, Any]:
        from PIL import Image

        blocks, extra = "", {}
        if images:
            pixels = vlm.images([Image.fromarray(np.asarray(i, np.uint8)) for i in images],
                                return_tensors="pt")
            for grid in pixels["image_grid_thw"]:
                n = int(grid.prod()) // vlm.merge**2
                blocks += "<|vision_start|>" + "<|image_pad|>" * n + "<|vision_end|>"
            extra = {"pixel_values": pixels["pixel_values"],
                     "image_grid_thw": pixels["image_grid_thw"]}
        text = (f"<|im_start|>system\n{self.options.system}<|im_end|>\n"
                f"<|im_start|>user\n{blocks}{prompt}<|im_end|>\n<|im_start|>assistant\n")
        ids = vlm.tokenizer(text, return_tensors="pt")
        return {"input_ids": ids["input_ids"], "attention_mask": ids["attention_mask"], **extra}


def _describe(m: Moment) -> str:
    parts = [f"[{m.span()}]"]
    if m.transcript:
        parts.append(f"said: {m.transcript}")
    if m.ocr_text:
        parts.append(f"screen: {' '.join(m.ocr_text.split())}")
    if m.caption:
        parts.append(f"picture: {m.caption}")
    return " ".join(parts)


def _read(path: str) -> np.ndarray | None:
    from PIL import Image

    try:
        with Image.open(path) as img:
            return np.asarray(img.convert("RGB"))
    except OSError:
        logger.warning("key frame %s is unreadable; answering without it", path)
        return None
