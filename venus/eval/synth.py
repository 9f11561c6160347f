"""Synthesizing FDB-format sample folders: seeded voices, phrasings and overlaps.

Behaviour layer of `venus.eval` (above `fdb`, beside `runner`). Sample ``i`` of a seed is
one user question (voice, rate, pitch, phrasing, lead-in silence drawn from
``random.Random(f"{seed}:{i}")``) shared by every subset, so the system's answer to the
clean input is computed once: it is run through the system under test (`runner`) and the
overlap is placed *while the assistant speaks*: 0.8-2.0 s into its first speech region
(found on ``clean_output.wav``), never past 0.6 s before that region ends. Per subset:

* ``user_interruption``: the same user changes or questions the topic ("Wait, what do
  the roots do?", "Hold on, is that right? ...");
* ``user_backchannel``: the user's "mm-hmm", "yeah", "right", "okay", "I see", ...;
* ``talking_to_other``: the user speaks to a named third person ("Sarah, close the door");
* ``background_speech``: a different voice 10-25 dB below the user (a TV, a nearby
  talk), with seeded noise half of the time;
* v1 ``pause_handling``: the question split by a 1.2-2.5 s pause (``timestamps`` = the
  pause); v1 ``smooth_turn_taking``: the question alone (``timestamps`` = its end, twice).

`TUNING_SEED` (0) is the one the policy was tuned on; `HELD_OUT_SEED` (2027) draws a test
set nobody tuned on: report figures on it, never tune on it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory.media import SAMPLE_RATE
from venus.eval.fdb import (
    OVERLAP_SUBSETS,
    SampleMeta,
    transcript_doc,
    write_json,
    write_meta,
    write_wav,
)
from venus.eval.timing import speech_regions

__all__ = ["HELD_OUT_SEED", "TUNING_SEED", "SampleSpec", "draw_spec", "speech_regions",
           "synthesize", "synthesize_index"]

logger = logging.getLogger(__name__)

TUNING_SEED = 0
HELD_OUT_SEED = 2027
VOICES = ("en-us", "en-us+f2", "en-us+m3", "en-us+f4", "en", "en+m7", "en-gb-x-rp+f3",
          "en-us+m5", "en-029+f1", "en-gb-scotland+m2")
ASSISTANT_VOICE = "en-us+m3"
QUESTIONS = (
    ("What do leaves make from sunlight?", "So, um,", "what do leaves make from sunlight?"),
    ("How do leaves make sugar?", "I was wondering,", "how do leaves make sugar?"),
    ("What is photosynthesis?", "Okay so", "what is photosynthesis exactly?"),
    ("Can you tell me what leaves do with sunlight?", "Can you tell me", "what leaves do with sunlight?"),
    ("What do roots take up from the soil?", "And the roots,", "what do they take up from the soil?"),
    ("How do plants make seeds?", "Tell me,", "how do plants make seeds?"),
)
INTERRUPTIONS = (
    "Wait, what do the roots do?", "Hold on, what about the roots?",
    "Sorry, how do roots take up water?", "Stop, can you explain the soil part?",
    "Wait, is that right? I thought plants eat soil.", "Actually, how do bees help plants?",
    "Hang on, what about the bees?", "Sorry to cut in, but why are leaves green?",
    "Wait wait, can you tell me about the roots instead?", "Hold on, where does the water come from?",
)
BACKCHANNELS = ("Mm-hmm.", "Yeah.", "Right.", "Okay.", "I see.", "Uh-huh.", "Mm.", "Sure.",
                "Yeah, yeah.", "Oh, okay.")
OTHER_NAMES = ("John", "Sarah", "Mike", "Emma", "David", "Lisa", "Tom", "Anna")
OTHER_REMARKS = ("{name}, can you pass me the salt?", "{name}, close the door please.",
                 "{name}, the pizza is here.", "{name}, did you feed the cat?",
                 "{name}, we're leaving in five minutes.", "Hey {name}, grab my keys, would you?",
                 "{name}, turn the oven off.")
BACKGROUND = ("And now the weather for the weekend, sunny with light winds.",
              "The match ended two all after extra time.",
              "Traffic is heavy on the northern bypass this evening.",
              "Did you see what she posted yesterday? It was hilarious.",
              "Shares fell sharply in early trading on Monday.",
              "I told him we would meet at the station at six.")


@dataclass(frozen=True)
class SampleSpec:
    """Everything drawn for sample ``index`` (one question, one overlap per subset)."""

    index: int
    voice: str
    rate: int
    pitch: int
    lead_s: float
    question: tuple[str, str, str]  # whole, first half, second half (pause handling)
    pause_s: float
    overlap_delay_s: float
    interruption: str
    backchannel: str
    other: str
    background: str
    background_voice: str
    background_db: float
    noise_db: float | None


def draw_spec(seed: int, index: int) -> SampleSpec:
    """The seeded draw for one sample (independent of n: sample i is the same for any n)."""
    rng = random.Random(f"{seed}:{index}")
    voice = rng.choice(VOICES)
    return SampleSpec(
        index, voice, rng.randint(145, 195), rng.randint(35, 65), round(rng.uniform(0.6, 1.5), 2),
        rng.choice(QUESTIONS), round(rng.uniform(1.2, 2.5), 2), round(rng.uniform(0.8, 2.0), 2),
        rng.choice(INTERRUPTIONS), rng.choice(BACKCHANNELS),
        rng.choice(OTHER_REMARKS).format(name=rng.choice(OTHER_NAMES)), rng.choice(BACKGROUND),
        rng.choice([v for v in VOICES if v not in (voice, ASSISTANT_VOICE)]),
        round(-rng.uniform(10.0, 25.0), 1), round(rng.uniform(-55, -45), 1) if rng.random() < 0.5 else None)


class _Voices:
    def __init__(self, tts, spec: SampleSpec) -> None:
        self.tts, self.spec = tts, spec

    def say(self, text: str, voice: str | None = None) -> np.ndarray:
        s = self.spec
        return self.tts.synthesize(text, voice=voice or s.voice, rate=s.rate, pitch=s.pitch).audio


def _mix(base: np.ndarray, extra: np.ndarray, at: float) -> np.ndarray:
    a = round(at * SAMPLE_RATE)
    out = np.zeros(max(len(base), a + len(extra)), np.float32)
    out[:len(base)] = base
    out[a:a + len(extra)] += extra
    return out


def _padded(audio: np.ndarray, length_s: float) -> np.ndarray:
    out = np.zeros(max(len(audio), round(length_s * SAMPLE_RATE)), np.float32)
    out[:len(audio)] = audio
    return out


def _overlap_audio(subset: str, spec: SampleSpec, voices: _Voices, seed: int) -> tuple[str, np.ndarray]:
    if subset == "user_interruption":
        return spec.interruption, voices.say(spec.interruption)
    if subset == "user_backchannel":
        return spec.backchannel, voices.say(spec.backchannel)
    if subset == "talking_to_other":
        return spec.other, voices.say(spec.other)
    audio = voices.say(spec.background, spec.background_voice) * 10 ** (spec.background_db / 20)
    if spec.noise_db is not None:
        rng = np.random.default_rng([seed, spec.index])
        audio = audio + (rng.standard_normal(len(audio)) * 10 ** (spec.noise_db / 20)).astype(np.float32)
    return spec.background, audio.astype(np.float32)


def synthesize(root: Path, n: int, seed: int = TUNING_SEED, *, subsets=OVERLAP_SUBSETS,
               models=None, tail_s: float = 14.0,
               progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Write ``n`` samples per subset under ``root/{subset}/{i:04d}``; returns the folders.

    The clean input of sample i is run through the system (the embedded frontend, in
    simulated time) to find where the assistant speaks; its output is the sample's
    ``clean_output.wav``/``.json`` in every subset."""
    from venus.scenario import shared_models

    models = models or shared_models()
    folders: list[Path] = []
    for i in range(n):
        folders += synthesize_index(root, seed, i, subsets=subsets, models=models, tail_s=tail_s)
        if progress is not None:
            progress(i + 1, n)
    return folders


def synthesize_index(root: Path, seed: int, index: int, *, subsets=OVERLAP_SUBSETS,
                     models=None, tail_s: float = 14.0) -> list[Path]:
    """Sample ``index`` of ``seed`` in every subset asked for (see `synthesize`)."""
    from venus.eval.runner import stream_audio
    from venus.scenario import shared_models

    models = models or shared_models()
    root = Path(root)
    spec = draw_spec(seed, index)
    voices = _Voices(models.tts, spec)
    folders = _write_v1(root, spec, voices, subsets, tail_s)
    overlap_sets = [s for s in subsets if s in OVERLAP_SUBSETS]
    if overlap_sets:
        folders += _write_overlaps(root, spec, voices, overlap_sets, seed, tail_s, models, stream_audio)
    return folders


def _question(spec: SampleSpec, voices: _Voices, tail_s: float) -> tuple[np.ndarray, float]:
    q = voices.say(spec.question[0])
    clean = _mix(np.zeros(0, np.float32), q, spec.lead_s)
    end = spec.lead_s + len(q) / SAMPLE_RATE
    return _padded(clean, end + tail_s), end


def _write_overlaps(root, spec, voices, subsets, seed, tail_s, models, stream_audio) -> list[Path]:
    clean, q_end = _question(spec, voices, tail_s)
    run = stream_audio(clean, models=models, session_id=f"clean-{spec.index}")
    regions = [r for r in speech_regions(run.output_audio) if r[0] >= q_end]
    if not regions:
        logger.warning("sample %d: the system never answered the clean input; skipped", spec.index)
        return []
    r0, r1 = regions[0]
    at = round(min(r0 + spec.overlap_delay_s, max(r0 + 0.3, r1 - 0.6)), 3)
    folders = []
    for subset in subsets:
        text, audio = _overlap_audio(subset, spec, voices, seed)
        folder = root / subset / f"{spec.index:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        mixed = _mix(clean, audio, at)[:len(clean)]
        write_wav(folder / "clean_input.wav", clean)
        write_wav(folder / "input.wav", mixed)
        write_wav(folder / "clean_output.wav", run.output_audio)
        write_json(folder / "clean_output.json", transcript_doc(run.words))
        end = round(at + len(audio) / SAMPLE_RATE, 3)
        meta = SampleMeta(spec.question[0], text, [at, end], {
            "subset": subset, "seed": seed, "index": spec.index, "user_voice": spec.voice,
            "rate": spec.rate, "pitch": spec.pitch, "question_span": [spec.lead_s, round(q_end, 3)],
            "assistant_speech": [r0, r1],
            "overlap_voice": spec.background_voice if subset == "background_speech" else spec.voice,
            "overlap_gain_db": spec.background_db if subset == "background_speech" else 0.0,
            "noise_db": spec.noise_db if subset == "background_speech" else None})
        write_meta(folder, subset, meta)
        folders.append(folder)
    return folders


def _write_v1(root, spec, voices, subsets, tail_s) -> list[Path]:
    folders = []
    if "smooth_turn_taking" in subsets:
        clean, q_end = _question(spec, voices, tail_s)
        folders.append(_v1_folder(root, "smooth_turn_taking", spec, clean,
                                  SampleMeta("", spec.question[0], [round(q_end, 3)] * 2)))
    if "pause_handling" in subsets:
        first, second = voices.say(spec.question[1]), voices.say(spec.question[2])
        p0 = spec.lead_s + len(first) / SAMPLE_RATE
        p1 = p0 + spec.pause_s
        audio = _mix(_mix(np.zeros(0, np.float32), first, spec.lead_s), second, p1)
        end = p1 + len(second) / SAMPLE_RATE
        folders.append(_v1_folder(root, "pause_handling", spec, _padded(audio, end + tail_s),
                                  SampleMeta("", f"{spec.question[1]} {spec.question[2]}",
                                             [round(p0, 3), round(p1, 3)], {"turn_end": round(end, 3)})))
    return folders


def _v1_folder(root: Path, subset: str, spec: SampleSpec, audio: np.ndarray, meta: SampleMeta) -> Path:
    folder = root / subset / f"{spec.index:04d}"
    folder.mkdir(parents=True, exist_ok=True)
    write_wav(folder / "input.wav", audio)
    write_wav(folder / "clean_input.wav", audio)
    meta.venus.update({"subset": subset, "index": spec.index, "user_voice": spec.voice})
    write_meta(folder, subset, meta)
    return folder
