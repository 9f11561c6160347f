"""`TransformersImageEmbedder`: a CLIP or SigLIP checkpoint from a local directory.

No image-text model ships in any package (DESIGN.md), so this backend of the
`ImageEmbedder` seam only reads a directory the user already has (``save_pretrained``
layout: ``config.json``, the weights, the tokenizer files and ``preprocessor_config.json``)
and never downloads. Both towers of the model are used: key frames go through the vision
tower, questions through the text tower, into one space, so a question searches the
pictures and a picture searches the pictures.

Pixels are prepared by transformers' PIL image processors (``CLIPImageProcessorPil``,
``SiglipImageProcessorPil``: numpy + Pillow), never the torchvision ones (no CPU
torchvision exists here). SigLIP's text tower was trained on texts padded to its full
length, so its texts are padded to ``max_position_embeddings`` (as its processor
documents); CLIP's are padded to the longest in the batch (it pools the end token).
SigLIP tokenizers are SentencePiece models: the ``images`` extra installs
``sentencepiece``. The loaded model is cached per process, keyed by (path, device).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import MissingExtraError, ModelUnavailableError
from memory.models.embedder import no_progress_bar

__all__ = ["FAMILIES", "TransformersImageEmbedder"]

FAMILIES = {"clip": "CLIPModel", "siglip": "SiglipModel"}
"""``config.json`` model types this backend reads, with the transformers class of each."""


def _features(output: Any):
    """transformers 5 returns the projected features as ``pooler_output``; 4 a tensor."""
    return output if hasattr(output, "dim") else output.pooler_output


class _LoadedTowers:
    """Tokenizer, image processor and model of one directory (shared per process)."""

    def __init__(self, path: Path, device: str) -> None:
        if not (path / "config.json").is_file():
            raise ModelUnavailableError(
                f"no image-text model at {path}: pass the directory of a CLIP or SigLIP "
                f"checkpoint saved with save_pretrained (models are never downloaded)")
        import transformers
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(str(path), local_files_only=True)
        if config.model_type not in FAMILIES:
            raise ModelUnavailableError(
                f"{path} holds a {config.model_type!r} model; TransformersImageEmbedder reads "
                f"CLIP and SigLIP checkpoints ({', '.join(FAMILIES)})")
        self.family = config.model_type
        try:
            with no_progress_bar():
                self.tokenizer = self._tokenizer(path)
                self.pixels = transformers.AutoImageProcessor.from_pretrained(
                    str(path), local_files_only=True, backend="pil")
                model_class = getattr(transformers, FAMILIES[self.family])
                self.model = model_class.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(
                f"could not load the image-text model at {path} ({exc}); pass a complete "
                f"checkpoint directory (config, weights, tokenizer, preprocessor_config.json)"
            ) from exc
        self.model.eval().to(device)
        self.device = device
        self.max_length = int(config.text_config.max_position_embeddings)
        probe = self.encode_texts([""])
        self.dim = int(probe.shape[1])
        self.lock = threading.Lock()  # fast tokenizers are not safe to share mid-call

    @staticmethod
    def _tokenizer(path: Path):
        from transformers import AutoTokenizer

        try:
            return AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        except (ImportError, TypeError, AttributeError) as exc:
            if "sentencepiece" in str(exc).lower() or (path / "spiece.model").is_file():
                raise MissingExtraError("sentencepiece", "images",
                                        "A SigLIP tokenizer (SentencePiece)") from exc
            raise

    def encode_images(self, images: list) -> np.ndarray:
        import torch

        batch = self.pixels(images=images, return_tensors="pt")
        with torch.inference_mode():
            out = self.model.get_image_features(pixel_values=batch["pixel_values"].to(
                self.device))
            return _unit(_features(out))

    def encode_texts(self, texts: list[str]) -> np.ndarray:
        import torch

        padding = "max_length" if self.family == "siglip" else True
        batch = self.tokenizer(texts, padding=padding, truncation=True,
                               max_length=self.max_length, return_tensors="pt")
        inputs = {"input_ids": batch["input_ids"].to(self.device)}
        if self.family == "clip" and "attention_mask" in batch:
            inputs["attention_mask"] = batch["attention_mask"].to(self.device)
        with torch.inference_mode():
            return _unit(_features(self.model.get_text_features(**inputs)))


def _unit(features) -> np.ndarray:
    import torch

    return torch.nn.functional.normalize(features.float(), p=2, dim=1).cpu().numpy()


@lru_cache(maxsize=2)
def _load(path: str, device: str) -> _LoadedTowers:
    return _LoadedTowers(Path(path), device)


def as_rgb(image: Any) -> np.ndarray:
    """An RGB uint8 array from a PIL image, an array (grey, RGB or RGBA) or a file path."""
    import os

    from PIL import Image

    if isinstance(image, (str, bytes, os.PathLike)):
        path = Path(os.fsdecode(image)).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"no image file at {path}; pass a path to a picture, "
                                    f"a PIL image or an RGB array")
        try:
            with Image.open(path) as img:
                return np.asarray(img.convert("RGB"))
        except OSError as exc:
            raise ValueError(f"{path} is not a picture Pillow can read ({exc})") from exc
    if isinstance(image, Image.Image):
        return np.asarray(image.convert("RGB"))
    array = np.asarray(image)
    if array.ndim == 2 or (array.ndim == 3 and array.shape[2] in (1, 3, 4)):
        if array.dtype != np.uint8:
            raise ValueError(f"an image array must be uint8 (0-255), got {array.dtype}")
        return np.asarray(Image.fromarray(array.squeeze()).convert("RGB"))
    raise ValueError(f"an image array must be HxW or HxWx3 (RGB), got shape {array.shape}")


class TransformersImageEmbedder:
    """The `ImageEmbedder` seam on a local CLIP or SigLIP checkpoint.

    ``model_path``: the checkpoint directory. The model loads on construction (cached per
    process). ``batch_size`` bounds the pictures or texts run through a tower at once.
    """

    def __init__(self, model_path: str | Path, device: str = "cpu", batch_size: int = 16) -> None:
        self.model_path = str(Path(model_path).expanduser().resolve())
        self.batch_size = max(1, int(batch_size))
        self._towers = _load(self.model_path, device)
        self.dim: int = self._towers.dim
        self.family: str = self._towers.family

    def __repr__(self) -> str:
        return f"TransformersImageEmbedder({self.model_path!r}, family={self.family!r})"

    def embed_images(self, images: Sequence[Any]) -> np.ndarray:
        """(len(images), dim) unit rows for RGB uint8 arrays (or PIL images / paths)."""
        from PIL import Image

        pictures = [Image.fromarray(as_rgb(i)) for i in images]
        return self._batched(pictures, self._towers.encode_images)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) unit rows from the text tower, in the pictures' space."""
        if isinstance(texts, str):
            raise TypeError("embed_texts() takes a sequence of strings; wrap one in a list")
        return self._batched([str(t) for t in texts], self._towers.encode_texts)

    def _batched(self, items: list, encode) -> np.ndarray:
        if not items:
            return np.zeros((0, self.dim), np.float32)
        with self._towers.lock:
            parts = [encode(items[i:i + self.batch_size])
                     for i in range(0, len(items), self.batch_size)]
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
