"""Embedded OCR: PP-OCR ONNX models from the ``rapidocr`` 3.x wheel, run by onnxruntime.

The model files are passed to rapidocr by explicit path, so it never reaches its
downloader; its own logger (which carries its own stderr handler) is set to errors only
through its ``Global.log_level`` option, so reading a frame prints nothing. The root
logger is never touched.

rapidocr treats a 3-channel numpy array as OpenCV BGR, so RGB frames are flipped before
the call. Its detector by default *upscales* the short side to 736 px (a 640x360 frame
becomes 1308x736, ~2x the work); slides and lecture frames are read as well at their
own size, so the long side is only limited to ``max_side``. The text-orientation
classifier is off: frames are upright. One engine per (options) per process, behind a
lock (rapidocr updates shared state on every call).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.models.base import TextBox

__all__ = ["RapidOCRReader", "ocr_device", "reading_order"]

logger = logging.getLogger(__name__)

_MODEL_FILES = {
    "Det.model_path": "PP-OCRv6_det_small.onnx",
    "Rec.model_path": "PP-OCRv6_rec_small.onnx",
    "Cls.model_path": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


@dataclass(frozen=True)
class _EngineKey:
    threads: int
    max_side: int
    cuda: bool = False


def ocr_device(device: str = "cpu") -> str:
    """Where OCR runs: ``"cuda"`` needs onnxruntime-gpu (its CUDA execution provider);
    ``"auto"`` takes CUDA when that provider is there, else the CPU."""
    if device not in ("auto", "cpu", "cuda"):
        raise ModelUnavailableError(f"OCR device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device == "cpu":
        return "cpu"
    try:
        import onnxruntime as ort

        cuda = "CUDAExecutionProvider" in ort.get_available_providers()
    except ImportError:
        cuda = False
    if device == "cuda" and not cuda:
        raise ModelUnavailableError(
            "OCR on CUDA needs onnxruntime-gpu (pip uninstall onnxruntime && pip install "
            "onnxruntime-gpu) and a CUDA device; or use device='cpu'")
    return "cuda" if cuda else "cpu"


def _model_dir() -> Path:
    try:
        import rapidocr
    except ImportError as exc:
        raise ModelUnavailableError(
            "OCR needs the 'rapidocr' package and onnxruntime: pip install 'rapidocr>=3,<4' "
            "onnxruntime") from exc
    return Path(rapidocr.__file__).parent / "models"


@lru_cache(maxsize=4)
def _engine(key: _EngineKey) -> Any:
    model_dir = _model_dir()
    params: dict[str, Any] = {"Global.log_level": "error", "Global.use_cls": False,
                              "Det.limit_type": "max", "Det.limit_side_len": key.max_side,
                              "EngineConfig.onnxruntime.intra_op_num_threads": key.threads,
                              "EngineConfig.onnxruntime.use_cuda": key.cuda}
    for option, name in _MODEL_FILES.items():
        path = model_dir / name
        if not path.is_file():
            raise ModelUnavailableError(
                f"the OCR model {path} is missing: reinstall the wheel that carries it "
                f"(pip install --force-reinstall 'rapidocr>=3,<4')")
        params[option] = str(path)
    from rapidocr import RapidOCR

    try:
        return RapidOCR(params=params)
    except Exception as exc:  # rapidocr raises plain Exceptions for bad configs/models
        raise ModelUnavailableError(
            f"could not load the rapidocr models from {model_dir} ({exc}); reinstall "
            f"rapidocr 3.x and onnxruntime") from exc


_LOCK = threading.Lock()


class RapidOCRReader:
    """The embedded `TextReader`: text lines with pixel boxes, in reading order.

    ``min_confidence`` drops lines the recogniser is unsure of; ``threads`` is
    onnxruntime's intra-op thread count (-1: one per core; 1 was fastest on a busy
    2-core machine); images whose long side exceeds ``max_side`` are scaled down for
    detection (boxes are always in the input's pixels). ``device``: ``"cpu"`` (default),
    ``"cuda"`` (onnxruntime-gpu) or ``"auto"`` (`ocr_device`).
    """

    def __init__(self, min_confidence: float = 0.5, threads: int = 1,
                 max_side: int = 960, device: str = "cpu") -> None:
        self.min_confidence = min_confidence
        self.device = ocr_device(device)
        self._engine = _engine(_EngineKey(int(threads), int(max_side), self.device == "cuda"))

    def read(self, image: np.ndarray) -> list[TextBox]:
        """Text lines in an RGB uint8 image of shape (H, W, 3), top to bottom, left to right."""
        bgr = _as_bgr(image)
        with _LOCK:  # every step named: rapidocr keeps the last call's choice of steps
            result = self._engine(bgr, use_det=True, use_cls=False, use_rec=True,
                                  text_score=self.min_confidence)
        if result.boxes is None or result.txts is None:
            return []
        boxes = [TextBox(text.strip(), _bounds(quad), float(score))
                 for quad, text, score in zip(result.boxes, result.txts, result.scores)
                 if text.strip() and score >= self.min_confidence]
        return reading_order(boxes)


    def detect(self, image: np.ndarray) -> list[np.ndarray]:
        """Text lines found in the image (detection only): each a 4x2 corner array in the
        image's pixels, in the order `recognize` takes them."""
        bgr = _as_bgr(image)
        with _LOCK:
            result = self._engine(bgr, use_det=True, use_cls=False, use_rec=False)
        return [] if result.boxes is None else [np.asarray(q, np.float32) for q in result.boxes]

    def recognize(self, image: np.ndarray, quads: list[np.ndarray]) -> list[TextBox]:
        """The text of the given lines (from `detect` on the same image); a line read with
        less than ``min_confidence`` comes back with empty text, so the order is kept."""
        if not quads:
            return []
        bgr = _as_bgr(image)
        with _LOCK:
            crops = self._engine.crop_text_regions(bgr, [q.copy() for q in quads])
            result = self._engine.recognize_txt(crops)
        out = []
        for quad, text, score in zip(quads, result.txts, result.scores):
            keep = text.strip() and score >= self.min_confidence
            out.append(TextBox(text.strip() if keep else "", _bounds(quad), float(score)))
        return out


def _as_bgr(image: np.ndarray) -> np.ndarray:
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(
            f"OCR needs an RGB uint8 image of shape (H, W, 3), got {arr.dtype} {arr.shape}; "
            f"convert it first (for example np.asarray(pil_image.convert('RGB')))")
    return np.ascontiguousarray(arr[..., ::-1])


def _bounds(quad: np.ndarray) -> tuple[float, float, float, float]:
    """The axis-aligned box (x0, y0, x1, y1) around rapidocr's four corner points."""
    q = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
    return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()),
            float(q[:, 1].max()))


def reading_order(boxes: list[TextBox]) -> list[TextBox]:
    """Sort boxes into lines (vertical centres within half a line height), each left to right."""
    lines: list[list[TextBox]] = []
    for box in sorted(boxes, key=lambda b: (b.box[1] + b.box[3]) / 2):
        centre, height = (box.box[1] + box.box[3]) / 2, box.box[3] - box.box[1]
        if lines:
            last = lines[-1][0].box
            if abs(centre - (last[1] + last[3]) / 2) < 0.5 * min(height, last[3] - last[1]):
                lines[-1].append(box)
                continue
        lines.append([box])
    return [b for line in lines for b in sorted(line, key=lambda b: b.box[0])]
