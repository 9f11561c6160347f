"""Frames and audio as model input: bounded resizing, base64 JPEG data URLs and
base64 WAV (for HTTP servers).

Above `base`; PIL and the standard library only (no torchvision in the backends).
"""

from __future__ import annotations

import base64
import io
import wave

import numpy as np
from PIL import Image

__all__ = ["fit_within", "jpeg_data_url", "wav_base64"]


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


def wav_base64(audio: np.ndarray, sample_rate: int = 16_000) -> str:
    """16-bit mono WAV bytes of ``audio`` (float in [-1, 1]), base64-encoded."""
    pcm = (np.clip(np.asarray(audio, np.float32), -1.0, 1.0) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(sample_rate)
        out.writeframes(pcm.tobytes())
    return base64.b64encode(buf.getvalue()).decode("ascii")
