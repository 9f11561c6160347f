"""Drawing slides with PIL: a text slide (title + bullets) or a text-free visual scene.

Scenes are distinctive pictures with no text at all (a needle only the pixels can
reveal); each is a painter keyed by name in `SCENES`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = ["SCENES", "draw_slide"]

_BG, _INK, _ACCENT = (250, 248, 240), (30, 30, 40), (40, 90, 170)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)  # Pillow's bundled font: no system fonts needed


def draw_slide(slide, index: int, lecture_title: str, size: tuple[int, int]) -> np.ndarray:
    """Render one slide (see `memory.samples.lecture.Slide`) as an RGB uint8 array."""
    if slide.scene:
        return draw_scene(slide.scene, size)
    w, h = size
    img = Image.new("RGB", size, _BG)
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, w, int(h * 0.2)], fill=_ACCENT)
    d.text((int(w * 0.04), int(h * 0.05)), slide.title, font=_font(int(h * 0.085)), fill="white")
    y = int(h * 0.3)
    body = _font(int(h * 0.058))
    for bullet in slide.bullets:
        for k, line in enumerate(_wrap(bullet, body, int(w * 0.86))):
            d.text((int(w * 0.06), y), ("- " if k == 0 else "  ") + line, font=body, fill=_INK)
            y += int(h * 0.09)
        y += int(h * 0.03)
    d.text((int(w * 0.04), int(h * 0.92)), f"{lecture_title}  |  slide {index + 1}",
           font=_font(int(h * 0.04)), fill=(120, 120, 120))
    return np.asarray(img)


def _wrap(text: str, font, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and font.getlength(trial) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def draw_scene(name: str, size: tuple[int, int]) -> np.ndarray:
    if name not in SCENES:
        raise ValueError(f"unknown scene {name!r}; choose one of {sorted(SCENES)}")
    img = Image.new("RGB", size)
    SCENES[name](ImageDraw.Draw(img), size)
    return np.asarray(img)


def _sunset(d: ImageDraw.ImageDraw, size) -> None:
    w, h = size
    for y in range(h):
        f = y / h
        d.line([(0, y), (w, y)], fill=(int(250 - 60 * f), int(140 - 100 * f), int(60 + 80 * f)))
    d.ellipse([w * 0.4, h * 0.45, w * 0.6, h * 0.45 + w * 0.2], fill=(255, 220, 90))
    d.rectangle([0, h * 0.7, w, h], fill=(30, 20, 50))


def _ocean(d: ImageDraw.ImageDraw, size) -> None:
    w, h = size
    d.rectangle([0, 0, w, h], fill=(10, 60, 140))
    for k in range(8):
        y = h * (0.2 + 0.1 * k)
        d.arc([-w * 0.1, y, w * 0.5, y + h * 0.1], 180, 360, fill=(200, 230, 255), width=4)
        d.arc([w * 0.45, y, w * 1.1, y + h * 0.1], 180, 360, fill=(200, 230, 255), width=4)


def _forest(d: ImageDraw.ImageDraw, size) -> None:
    w, h = size
    d.rectangle([0, 0, w, h], fill=(170, 220, 250))
    d.rectangle([0, h * 0.8, w, h], fill=(90, 60, 30))
    for k in range(7):
        x = w * (0.07 + 0.14 * k)
        d.polygon([(x, h * 0.25), (x - w * 0.07, h * 0.8), (x + w * 0.07, h * 0.8)],
                  fill=(20, 110 + 10 * (k % 3), 40))


def _checkerboard(d: ImageDraw.ImageDraw, size) -> None:
    w, h = size
    cell = h // 6
    for i in range(0, w, cell):
        for j in range(0, h, cell):
            if (i // cell + j // cell) % 2 == 0:
                d.rectangle([i, j, i + cell, j + cell], fill=(230, 30, 30))
            else:
                d.rectangle([i, j, i + cell, j + cell], fill=(250, 250, 250))


def _night_sky(d: ImageDraw.ImageDraw, size) -> None:
    w, h = size
    d.rectangle([0, 0, w, h], fill=(5, 5, 25))
    rng = np.random.default_rng(7)
    for x, y in rng.uniform(0, 1, size=(120, 2)):
        d.ellipse([x * w, y * h, x * w + 3, y * h + 3], fill=(255, 255, 230))
    d.ellipse([w * 0.75, h * 0.1, w * 0.9, h * 0.1 + w * 0.15], fill=(240, 240, 210))


SCENES: dict[str, Callable[[ImageDraw.ImageDraw, tuple[int, int]], None]] = {
    "sunset": _sunset,
    "ocean": _ocean,
    "forest": _forest,
    "checkerboard": _checkerboard,
    "night-sky": _night_sky,
}
