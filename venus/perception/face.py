"""Is someone facing the camera? OpenCV's frontal-face Haar cascade, shipped in the wheel.

Above `config`. ``opencv-python-headless`` carries the cascade XML files
(``cv2.data.haarcascades``), so nothing is downloaded. A frontal cascade fires only on
faces turned roughly toward the camera, which is the cue we want (a profile or a
turned-away head does not match).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError

__all__ = ["FaceDetector", "frontal_cascade_path"]

logger = logging.getLogger(__name__)

_CASCADE = "haarcascade_frontalface_default.xml"


def frontal_cascade_path() -> Path:
    """The frontal-face cascade inside the installed OpenCV wheel."""
    try:
        import cv2
    except ImportError as exc:
        raise ModelUnavailableError(
            "face detection needs OpenCV: pip install opencv-python-headless") from exc
    return Path(cv2.data.haarcascades) / _CASCADE


@lru_cache(maxsize=2)
def _cascade(path: str) -> Any:
    import cv2

    if not hasattr(cv2, "CascadeClassifier"):
        raise ModelUnavailableError(
            f"OpenCV {cv2.__version__} has no Haar cascades (OpenCV 5 dropped them): "
            f"pip install 'opencv-python-headless>=4.8,<5'")
    if not Path(path).is_file():
        raise ModelUnavailableError(
            f"no face cascade at {path}: reinstall opencv-python-headless or pass "
            f"cascade_path= to a Haar cascade XML file")
    cascade = cv2.CascadeClassifier(path)
    if cascade.empty():
        raise ModelUnavailableError(f"OpenCV could not read the face cascade at {path}; "
                                    f"pass cascade_path= to a valid Haar cascade XML file")
    return cascade


class FaceDetector:
    """Frontal faces in RGB uint8 frames; ``min_size`` is a fraction of the shorter side."""

    def __init__(self, min_size: float = 0.12, max_width: int = 480,
                 cascade_path: str | None = None) -> None:
        self.path = str(cascade_path or frontal_cascade_path())
        self._cascade = _cascade(self.path)
        self.min_size, self.max_width = min_size, max_width

    def detect(self, image: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Face boxes (x, y, w, h) in the original image's pixels."""
        import cv2

        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"expected an RGB uint8 image (H, W, 3), got {image.shape} "
                             f"{image.dtype}")
        scale = min(1.0, self.max_width / image.shape[1])
        small = image if scale == 1.0 else cv2.resize(
            image, (round(image.shape[1] * scale), round(image.shape[0] * scale)),
            interpolation=cv2.INTER_AREA)
        gray = cv2.equalizeHist(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY))
        side = max(24, int(min(gray.shape) * self.min_size))
        boxes = self._cascade.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=5,
                                               minSize=(side, side))
        return [tuple(round(v / scale) for v in box) for box in np.asarray(boxes).reshape(-1, 4)]

    def facing_camera(self, image: np.ndarray) -> bool:
        return bool(self.detect(image))
