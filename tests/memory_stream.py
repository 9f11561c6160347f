"""A small synthetic stream for the memory tests: slides drawn with PIL, speech by eSpeak.

Not a test module (no ``test_`` prefix): imported by tests/test_memory_*.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from memory.media import SAMPLE_RATE, Frame, VideoChunk


@dataclass(frozen=True)
class Part:
    screen: str          # text drawn on the slide ("" for a plain coloured scene)
    sentences: tuple[str, ...]
    seconds: int         # how long the slide stays up
    colour: tuple[int, int, int] = (245, 245, 240)


def draw(text: str, colour=(245, 245, 240), size=(640, 360)) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", size, colour)
    if text:
        font = ImageFont.load_default(size=30)
        ImageDraw.Draw(img).multiline_text((30, 40), text, fill=(20, 20, 20), font=font,
                                           spacing=14)
    return np.asarray(img)


@lru_cache(maxsize=64)
def _speech(sentence: str) -> np.ndarray:
    from memory.models.tts import EspeakSynthesizer

    return EspeakSynthesizer().synthesize(sentence).audio


def build_stream(parts: list[Part]) -> tuple[list[VideoChunk], dict]:
    """Chunks of one second plus the truth: when each sentence is spoken, each slide shown."""
    audio: list[np.ndarray] = []
    truth = {"sentences": [], "slides": []}
    t = 0
    for part in parts:
        cursor = t + 1.0
        pieces = [np.zeros(SAMPLE_RATE, np.float32)]
        for sentence in part.sentences:
            wav = _speech(sentence)
            truth["sentences"].append({"text": sentence, "start": cursor,
                                       "end": cursor + len(wav) / SAMPLE_RATE})
            pieces += [wav, np.zeros(int(0.6 * SAMPLE_RATE), np.float32)]
            cursor += len(wav) / SAMPLE_RATE + 0.6
        spoken = np.concatenate(pieces)
        seconds = max(part.seconds, int(np.ceil(len(spoken) / SAMPLE_RATE)))
        audio.append(np.pad(spoken, (0, seconds * SAMPLE_RATE - len(spoken))))
        truth["slides"].append({"text": part.screen, "start": t, "end": t + seconds})
        t += seconds
    samples = np.concatenate(audio)
    chunks = []
    images = {}
    for i in range(t):
        part_i = next(n for n, s in enumerate(truth["slides"]) if s["start"] <= i < s["end"])
        part = parts[part_i]
        key = (part.screen, part.colour)
        if key not in images:
            images[key] = draw(part.screen, part.colour)
        chunks.append(VideoChunk(i, float(i), float(i + 1), (Frame(i + 0.5, images[key]),),
                                 samples[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE].copy()))
    return chunks, truth


LECTURE = [
    Part("Photosynthesis\nPlants turn light into sugar",
         ("Photosynthesis lets plants turn sunlight into chemical energy.",
          "Chlorophyll absorbs red and blue light."), 14),
    Part("The Water Cycle\nEvaporation and rain",
         ("Water evaporates from the oceans and falls again as rain.",), 12),
    Part("", ("Our guest today is professor Zanzibar from Lisbon.",), 10, (40, 90, 160)),
    Part("Secret code: PURPLE ELEPHANT 42\nRemember it",
         ("Volcanoes form where tectonic plates meet.",), 12),
]

QA_LECTURE = [
    Part("Photosynthesis\nPlants turn light into sugar\nScience Week | slide 1",
         ("Photosynthesis lets plants turn sunlight into chemical energy.",
          "Chlorophyll absorbs red and blue light."), 14),
    Part("The Water Cycle\nThe Nile is 6650 kilometres long\nScience Week | slide 2",
         ("Water evaporates from the oceans and falls again as rain.",), 12),
    Part("", ("Our guest today is professor Zanzibar from Lisbon.",), 10, (40, 90, 160)),
    Part("Volcanoes\nMagma rises through the crust\nScience Week | slide 3",
         ("Volcanoes form where tectonic plates meet.",
          "The tallest volcano in the solar system is on Mars."), 14),
    Part("The Human Heart\nFour chambers pump blood\nScience Week | slide 4",
         ("The heart beats about one hundred thousand times every day.",), 12),
]
"""Slides with a footer on every one, facts only said, only shown, and a text-free scene
(the answer tests)."""
