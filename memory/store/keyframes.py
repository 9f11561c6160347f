"""Key frames: which sampled frames show something new, and their JPEGs on disk.

A frame becomes a key frame when its colour histogram moves away from the last key
frame's (a new scene) *or* when a small grey thumbnail differs in enough pixels (a
slide whose text changed on the same template barely moves a colour histogram). Both
cues cost well under a millisecond per frame; only key frames are OCR'd and stored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from memory.store.faults import discard

__all__ = ["KeyFrameDetector", "KeyFrameOptions", "Signature", "save_jpeg"]

_BINS = 8
_THUMB = (96, 54)


@dataclass
class KeyFrameOptions:
    """``histogram_change``: total-variation distance (0..1) between colour histograms
    that marks a new scene; ``pixel_change``: share of thumbnail pixels whose grey level
    moved by more than ``pixel_delta`` that marks new on-screen content."""

    histogram_change: float = 0.25
    pixel_change: float = 0.002
    pixel_delta: int = 16


@dataclass(frozen=True)
class Signature:
    """What a key frame is compared by: a 512-bin colour histogram and a grey thumbnail."""

    histogram: np.ndarray
    thumbnail: np.ndarray

    def to_bytes(self) -> bytes:
        return self.histogram.astype(np.float32).tobytes() + self.thumbnail.tobytes()

    @classmethod
    def from_bytes(cls, blob: bytes) -> Signature:
        n = _BINS**3 * 4
        hist = np.frombuffer(blob[:n], dtype=np.float32).copy()
        thumb = np.frombuffer(blob[n:], dtype=np.uint8).reshape(_THUMB[1], _THUMB[0]).copy()
        return cls(hist, thumb)


def signature(image: np.ndarray) -> Signature:
    """Histogram of a strided copy (exact enough, 16x cheaper) and an area-mean thumbnail."""
    import cv2

    small = image[::4, ::4]
    q = (small // (256 // _BINS)).astype(np.int32)
    codes = (q[..., 0] * _BINS + q[..., 1]) * _BINS + q[..., 2]
    hist = np.bincount(codes.ravel(), minlength=_BINS**3).astype(np.float32)
    hist /= max(hist.sum(), 1.0)
    grey = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY)
    thumb = cv2.resize(grey, _THUMB, interpolation=cv2.INTER_AREA)
    return Signature(hist, thumb)


class KeyFrameDetector:
    """Streaming state: the signature of the last key frame (None before the first)."""

    def __init__(self, options: KeyFrameOptions | None = None,
                 last: Signature | None = None) -> None:
        self.options = options or KeyFrameOptions()
        self.last = last

    def reset(self, last: Signature | None = None) -> None:
        self.last = last

    def changes(self, sig: Signature) -> bool:
        """True when ``sig`` differs enough from the last key frame (always for the first)."""
        if self.last is None:
            return True
        hist_change = 0.5 * float(np.abs(sig.histogram - self.last.histogram).sum())
        diff = np.abs(sig.thumbnail.astype(np.int16) - self.last.thumbnail.astype(np.int16))
        pixel_change = float((diff > self.options.pixel_delta).mean())
        return (hist_change >= self.options.histogram_change
                or pixel_change >= self.options.pixel_change)

    def update(self, image: np.ndarray) -> Signature | None:
        """The frame's signature when it is a new key frame (and remember it), else None."""
        sig = signature(image)
        if not self.changes(sig):
            return None
        self.last = sig
        return sig


def save_jpeg(image: np.ndarray, path: str, quality: int = 85,
              max_side: int | None = None) -> None:
    """Write an RGB frame as JPEG atomically (temporary file renamed into place), scaled
    down to ``max_side`` pixels on its long side when larger (OCR has read it already)."""
    from PIL import Image

    tmp = f"{path}.tmp"
    picture = Image.fromarray(image)
    if max_side and max(picture.size) > max_side:
        picture.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    try:
        picture.save(tmp, format="JPEG", quality=quality)
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)  # a full disk leaves no half-written picture behind
        raise
