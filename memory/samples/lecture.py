"""A deterministic, narrated synthetic lecture: the demo input and the test fixture.

`lecture_script` plans the slides (title, bullets, narration sentences, or a text-free
visual ``scene``); `render_lecture` speaks the narration with the embedded TTS, draws the
slides with PIL, muxes an H.264/AAC MP4 and writes a ground-truth JSON with every slide's
span and every sentence's start and end. Other code (the needle benchmark) edits a
`LectureScript` before rendering it. No binary media is committed: everything is made here.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from memory.media import SAMPLE_RATE
from memory.models.base import SpeechSynthesizer
from memory.samples.slides import draw_slide
from memory.samples.topics import TOPICS

__all__ = [
    "LectureFiles",
    "LectureScript",
    "Slide",
    "lecture_script",
    "make_lecture",
    "render_lecture",
    "write_subtitles",
]

logger = logging.getLogger(__name__)

MIN_SLIDE_S, MAX_SLIDE_S = 20.0, 90.0
_LEAD_IN_S, _GAP_S = 1.0, 0.45  # silence before a slide's first sentence, and between sentences


@dataclass
class Slide:
    """One slide: what is shown (title + bullets, or a text-free ``scene``) and what is said.

    ``min_seconds`` stretches the slide with silence (the generator draws it in 20-90 s).
    """

    title: str = ""
    bullets: list[str] = field(default_factory=list)
    narration: list[str] = field(default_factory=list)
    scene: str | None = None
    min_seconds: float = MIN_SLIDE_S


@dataclass
class LectureScript:
    title: str
    slides: list[Slide]
    seed: int = 0
    voice: str = "en-us"
    rate: int = 165


@dataclass(frozen=True)
class LectureFiles:
    """Where a rendered lecture lives and its ground truth (see the module docstring)."""

    video: Path
    truth_path: Path

    @property
    def truth(self) -> dict:
        return json.loads(self.truth_path.read_text())


def lecture_script(minutes: float = 3.0, seed: int = 0) -> LectureScript:
    """Plan a lecture of about ``minutes``: topics in a seeded order, 20-90 s per slide."""
    if minutes <= 0:
        raise ValueError(f"minutes must be positive, got {minutes}")
    rng = random.Random(seed)
    order = list(range(len(TOPICS)))
    rng.shuffle(order)
    slides, planned, n = [], 0.0, 0
    while planned < minutes * 60.0:
        title, bullets, sentences = TOPICS[order[n % len(order)]]
        lap = n // len(order)
        hold = rng.uniform(MIN_SLIDE_S, min(MAX_SLIDE_S, MIN_SLIDE_S + 40.0))
        slides.append(Slide(title=title if lap == 0 else f"{title} (review {lap})",
                            bullets=list(bullets), narration=_narration(sentences, rng, lap),
                            min_seconds=hold))
        planned += max(hold, _spoken_seconds(slides[-1].narration))
        n += 1
    return LectureScript(title="A Short Tour of the Natural Sciences", slides=slides, seed=seed)


def _spoken_seconds(sentences: list[str]) -> float:
    """A planning estimate of narration time (eSpeak at 165 wpm says ~2.7 words/s)."""
    return 2 * _LEAD_IN_S + sum(len(s.split()) / 2.7 + _GAP_S for s in sentences)


def _narration(sentences: tuple[str, ...], rng: random.Random, lap: int) -> list[str]:
    if lap == 0:
        return list(sentences)
    picked = rng.sample(list(sentences), k=max(3, len(sentences) - 2))
    return ["Let us review this topic once more.", *picked]


def make_lecture(minutes: float = 3.0, seed: int = 0, out_dir: str | Path = "samples",
                 progress: bool = False, subtitles: bool = False,
                 narrator: str = "espeak") -> LectureFiles:
    """Render the standard sample lecture into ``out_dir``, or reuse it if already there.

    ``subtitles`` also writes ``lecture.srt`` beside the video (every sentence as said,
    timed exactly), which `memory.video.open_video` picks up as a side-car. ``narrator``:
    ``espeak`` (eSpeak NG, the tests' fixed voice), ``piper`` (Piper
    ``en_US-joe-medium``, the ``voices`` extra) or ``auto`` (Piper when installed, else
    eSpeak; a lecture already rendered there is reused whoever narrated it).
    """
    if narrator not in NARRATORS:
        raise ValueError(f"unknown narrator {narrator!r}; choose from {', '.join(NARRATORS)}")
    out = Path(out_dir)
    files = LectureFiles(out / "lecture.mp4", out / "lecture.json")
    if files.video.exists() and files.truth_path.exists():
        truth = files.truth
        said_by = truth.get("narrator", "espeak")
        if truth.get("minutes") == minutes and truth.get("seed") == seed and \
                narrator in (said_by, "auto"):
            if subtitles:
                write_subtitles(files)
            return files
    script = lecture_script(minutes, seed)
    name, tts = _narrator(narrator)
    files = render_lecture(script, out, extra={"minutes": minutes, "narrator": name},
                           progress=progress, tts=tts)
    if subtitles:
        write_subtitles(files)
    return files


NARRATORS = ("espeak", "piper", "auto")


def _narrator(narrator: str):
    """(name, synthesizer) for ``narrator`` (None: eSpeak with the script's voice)."""
    if narrator == "auto":
        from memory.models.voices import piper_missing

        narrator = "espeak" if piper_missing() else "piper"
    if narrator == "piper":
        from memory.models.voices import PiperSynthesizer

        return "piper", PiperSynthesizer()
    return "espeak", None


def write_subtitles(files: LectureFiles) -> Path:
    """``lecture.srt`` beside the video: each narrated sentence with its exact times."""
    from memory.media import Cue
    from memory.video.subtitles import write_srt

    cues = [Cue(s["start"], s["end"], s["text"]) for s in files.truth["sentences"]]
    return write_srt(files.video.with_suffix(".srt"), cues)


def render_lecture(script: LectureScript, out_dir: str | Path, fps: float = 5.0,
                   size: tuple[int, int] = (640, 360), extra: dict | None = None,
                   progress: bool = False, tts=None) -> LectureFiles:
    """Speak, draw and mux ``script`` into ``out_dir``/lecture.mp4 + lecture.json."""
    from memory.models.tts import EspeakSynthesizer
    from memory.video.writer import write_video

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # ``tts``: any SpeechSynthesizer (another voice family); eSpeak with the script's voice
    # by default.
    tts = tts or EspeakSynthesizer(voice=script.voice, rate=script.rate)
    timeline, audio = _speak(script, tts, progress)
    duration = len(audio) / SAMPLE_RATE
    frames = _frames(script, timeline["slides"], duration, fps, size)
    video = out / "lecture.mp4"
    tmp = out / "lecture.tmp.mp4"
    write_video(tmp, frames, fps, audio)
    tmp.replace(video)  # atomic: a half-written file never looks finished
    truth = {"title": script.title, "seed": script.seed, "duration": duration, "fps": fps,
             "width": size[0], "height": size[1], **(extra or {}), **timeline}
    truth_path = out / "lecture.json"
    truth_path.write_text(json.dumps(truth, indent=1))
    logger.info("rendered %.0f s lecture with %d slides to %s", duration,
                len(script.slides), video)
    return LectureFiles(video, truth_path)


def _speak(script: LectureScript, tts, progress: bool) -> tuple[dict, np.ndarray]:
    """Synthesize every sentence; lay them out slide by slide; return timing + audio."""
    pieces, slides, sentences, t = [], [], [], 0.0
    for i, slide in enumerate(_progress(script.slides, progress, "narrating")):
        start, cursor = t, t + _LEAD_IN_S
        for text in slide.narration:
            speech = tts.synthesize(text)
            pieces.append((cursor, speech.audio))
            sentences.append({"slide": i, "text": text, "start": round(cursor, 3),
                              "end": round(cursor + speech.duration, 3)})
            cursor += speech.duration + _GAP_S
        t = round(max(cursor + _LEAD_IN_S, start + slide.min_seconds))
        slides.append({"index": i, "start": start, "end": float(t), **_shown(slide)})
    audio = np.zeros(int(round(t * SAMPLE_RATE)), np.float32)
    for at, samples in pieces:
        i = int(round(at * SAMPLE_RATE))
        audio[i: i + len(samples)] = samples[: len(audio) - i]
    return {"slides": slides, "sentences": sentences}, audio


def _shown(slide: Slide) -> dict:
    d = asdict(slide)
    d.pop("min_seconds")
    return d


def _frames(script: LectureScript, spans: list[dict], duration: float, fps: float,
            size: tuple[int, int]) -> Iterator[np.ndarray]:
    """One image per slide, repeated for its span (static slides encode almost for free)."""
    n_frames = int(np.ceil(duration * fps))
    current, image = -1, None
    for k in range(n_frames):
        t = k / fps
        idx = next(i for i, s in enumerate(spans) if s["end"] > t or i == len(spans) - 1)
        if idx != current:
            current, image = idx, draw_slide(script.slides[idx], idx, script.title, size)
        yield image


def _progress(items, enabled: bool, desc: str):
    if not enabled:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, unit="slide")

