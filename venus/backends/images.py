"""Frames as model input: bounded resizing and base64 JPEG data URLs (for HTTP servers).

Above `base`; PIL only (no torchvision anywhere in the backends).
"""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image

__all__ = ["fit_within", "jpeg_data_url"]


def fit_within(image: np.ndarray, max_side: int) -> Image.Image:
    """``image`` (RGB uint8) as a PIL image whose longer side is at most ``max_side``."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an RGB uint8 image (H, W, 3), got {image.shape} {image.dtype}")
    pil = Image.fromarray(image)
    scale = max_side / max(pil.size)
    if scale < 1.0:
        pil = pil.resize((max(1, round(pil.width * scale)), max(1, round(pil.height * scale))),
                         Image.Resampling.BICUBIC)
    return pil


def jpeg_data_url(image: np.ndarray, max_side: int = 448, quality: int = 80) -> str:
    """A ``data:image/jpeg;base64,...`` URL, the form every OpenAI-compatible server reads."""
    buf = io.BytesIO()
    fit_within(image, max_side).save(buf, format="JPEG", quality=quality)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
