"""Synthesizing FDB-format sample folders: seeded voices, phrasings and overlaps.

Behaviour layer of `venus.eval` (above `fdb`, beside `runner`). Sample ``i`` of a seed is
one user question (voice family and voice, rate, pitch, phrasing, lead-in silence drawn from
``random.Random(f"{seed}:{i}")``) shared by every subset, so the system's answer to the
clean input is computed once: it is run through the system under test (`runner`) and the
overlap is placed *while the assistant speaks*: 0.8-2.0 s into its first speech region
(found on ``clean_output.wav``), never past 0.6 s before that region ends. Per subset:

* ``user_interruption``: the same user changes the topic ("Wait, what do the roots do?"
  after a question about leaves; never the question's own topic);
* ``user_backchannel``: the user's "mm-hmm", "yeah", "right", "okay", "I see", ...;
* ``talking_to_other``: the user speaks to a named third person ("Sarah, close the door";
  on the tuning split also "Wait, Sarah, ..." openers, and interruptions with a soft or
  no opener: `OPENER_REMARKS`, `SOFT_INTERRUPTIONS`);
* ``background_speech``: a different voice 10-25 dB below the user (a TV, a nearby
  talk), with seeded noise half of the time;
* v1 ``pause_handling``: the question split by a 1.2-2.5 s pause (``timestamps`` = the
  pause); v1 ``smooth_turn_taking``: the question alone (``timestamps`` = its end, twice).

Voices (`venus.eval.voices`): the user's parts in a family chosen by seed from the tuning
families (eSpeak, Piper), the background speaker's from those and real recordings, every
part at one speech level, the background in a room half the time. `TUNING_SEED` (0) is
the one the policy was tuned on; the held-out split (``held_out=True``, with
`HELD_OUT_SEED` 2027) speaks every part in the held-out family (Flite): report figures on
it, never tune on it. The assistant answers from `venus.eval.notes` (``root/notes.json``).
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
    read_wav,
    transcript_doc,
    write_json,
    write_meta,
    write_wav,
)
from venus.eval.notes import DEFAULT_NOTES, write_notes
from venus.eval.timing import speech_regions
from venus.eval.voices import (
    BACKGROUND_FAMILIES,
    FAMILIES,
    HELD_OUT_FAMILY,
    IMPULSES,
    TUNING_FAMILIES,
    family_synthesizer,
    human_clips,
    in_room,
    spoken,
)

__all__ = ["HELD_OUT_SEED", "TUNING_SEED", "SampleSpec", "draw_spec", "speech_regions",
           "synthesize", "synthesize_index", "voiced_span"]

logger = logging.getLogger(__name__)

TUNING_SEED = 0
HELD_OUT_SEED = 2027
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
# What each question and interruption is about (the note that answers it, in
# `venus.eval.notes.DEFAULT_NOTES`): an interruption always changes the topic, so a reply
# that only repeats the old answer is no reply (`venus.eval.score.only_old_answer`).
QUESTION_TOPICS = ("leaves", "leaves", "leaves", "leaves", "roots", "seeds")
INTERRUPTION_TOPICS = ("roots", "roots", "roots", "roots", "colour", "seeds", "seeds", "colour",
                       "roots", "roots")
BACKCHANNELS = ("Mm-hmm.", "Yeah.", "Right.", "Okay.", "I see.", "Uh-huh.", "Mm.", "Sure.",
                "Yeah, yeah.", "Oh, okay.")
OTHER_NAMES = ("John", "Sarah", "Mike", "Emma", "David", "Lisa", "Tom", "Anna")
OTHER_REMARKS = ("{name}, can you pass me the salt?", "{name}, close the door please.",
                 "{name}, the pizza is here.", "{name}, did you feed the cat?",
                 "{name}, we're leaving in five minutes.", "Hey {name}, grab my keys, would you?",
                 "{name}, turn the oven off.")
# Tuning only (a held-out draw never uses them, so the held-out set is the one every
# session measured): remarks to someone else that open the way an interruption does
# ("Wait, Sarah, ..."), and interruptions whose opener is soft or absent ("And what do
# the roots do?"). Each is drawn for about half of the tuning samples, from a stream of
# its own, so every other part of a sample is drawn as before.
OPENER_REMARKS = ("Wait, {name}, can you close the window?", "Hold on, {name}, can you get the door?",
                  "Sorry, {name}, can you pass the salt?", "Hang on, {name}, where are my keys?",
                  "Actually, {name}, we need more milk.", "{name}, wait, did you lock the car?",
                  "Oh, {name}, the pizza is here.", "Stop, {name}, the dog is on the sofa.")
SOFT_INTERRUPTIONS = ("And what do the roots do?", "So how do bees help plants?",
                      "Um, why are leaves green?", "But where does the water come from?",
                      "How do roots take up water?", "Okay, and why are leaves green?",
                      "Oh, and what do roots take from the soil?", "Do bees help plants make seeds?")
SOFT_TOPICS = ("roots", "seeds", "colour", "roots", "roots", "colour", "roots", "seeds")
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
    family: str = "espeak"             # the user's voice family (all of the user's parts)
    background_family: str = "espeak"  # the background speaker's ("human": a recording)
    background_clip: int | None = None  # which recording (index into `human_clips`)
    room: str | None = None            # impulse response the background plays through


def draw_spec(seed: int, index: int, held_out: bool = False) -> SampleSpec:
    """The seeded draw for one sample (independent of n: sample i is the same for any n).

    Each part picks its voice family by seed: the user's from `TUNING_FAMILIES`, the
    background speaker's from `BACKGROUND_FAMILIES`; ``held_out`` speaks every part in
    the held-out family (`venus.eval.voices`)."""
    rng = random.Random(f"{seed}:{index}")
    family = HELD_OUT_FAMILY if held_out else rng.choice(TUNING_FAMILIES)
    voice = rng.choice(FAMILIES[family])
    rate, pitch, lead = rng.randint(145, 195), rng.randint(35, 65), round(rng.uniform(0.6, 1.5), 2)
    asked = rng.randrange(len(QUESTIONS))
    question, pause, delay = QUESTIONS[asked], round(rng.uniform(1.2, 2.5), 2), round(rng.uniform(0.8, 2.0), 2)
    interruption = rng.choice([x for x, topic in zip(INTERRUPTIONS, INTERRUPTION_TOPICS)
                               if topic != QUESTION_TOPICS[asked]])
    backchannel = rng.choice(BACKCHANNELS)
    other = rng.choice(OTHER_REMARKS).format(name=rng.choice(OTHER_NAMES))
    if not held_out:
        hard = random.Random(f"{seed}:{index}:hard")
        if hard.random() < 0.5:
            other = hard.choice(OPENER_REMARKS).format(name=hard.choice(OTHER_NAMES))
        if hard.random() < 0.5:
            interruption = hard.choice([x for x, topic in zip(SOFT_INTERRUPTIONS, SOFT_TOPICS)
                                        if topic != QUESTION_TOPICS[asked]])
    # never the user's own voice in the background (Piper has one voice: another family then)
    apart = [f for f in BACKGROUND_FAMILIES if f == "human" or set(FAMILIES[f]) - {voice}]
    background_family = HELD_OUT_FAMILY if held_out else rng.choice(apart)
    clip, background = None, rng.choice(BACKGROUND)
    if background_family == "human":
        clip = rng.choice([i for i, c in enumerate(human_clips()) if len(c.audio) >= 1.5 * SAMPLE_RATE])
        background_voice, background = human_clips()[clip].speaker, human_clips()[clip].text
    else:
        others = [v for v in FAMILIES[background_family] if v not in (voice, ASSISTANT_VOICE)]
        background_voice = rng.choice(others or FAMILIES[background_family])
    db, noise = round(-rng.uniform(10.0, 25.0), 1), (round(rng.uniform(-55, -45), 1) if rng.random() < 0.5 else None)
    room = rng.choice(IMPULSES) if rng.random() < 0.5 else None
    return SampleSpec(index, voice, rate, pitch, lead, question, pause, delay, interruption,
                      backchannel, other, background, background_voice, db, noise, family,
                      background_family, clip, room)


class _Voices:
    """Says a text in one of the sample's voices, at the common speech level."""

    def __init__(self, tts, spec: SampleSpec) -> None:
        self.tts, self.spec = tts, spec

    def say(self, text: str) -> np.ndarray:
        """The user's voice."""
        s = self.spec
        tts = family_synthesizer(s.family, self.tts)
        return _level(tts.synthesize(spoken(s.family, text), voice=s.voice, rate=s.rate,
                                     pitch=s.pitch).audio)

    def background(self) -> np.ndarray:
        """The background speaker's voice, in its room (full level: the caller lowers it)."""
        s = self.spec
        if s.background_clip is not None:
            audio = human_clips()[s.background_clip].audio
        else:
            tts = family_synthesizer(s.background_family, self.tts)
            audio = tts.synthesize(s.background, voice=s.background_voice, rate=s.rate,
                                   pitch=s.pitch).audio
        return _level(in_room(_level(audio), s.room))


SPEECH_DBFS = -21.0  # eSpeak's own level (RMS over voiced 10 ms frames): every part's level


def _level(audio: np.ndarray, dbfs: float = SPEECH_DBFS) -> np.ndarray:
    frame = SAMPLE_RATE // 100
    n = len(audio) // frame
    frames = audio[:n * frame].reshape(n, frame)
    voiced = frames[np.abs(frames).max(axis=1) > 1e-3]
    if not len(voiced):
        return audio.astype(np.float32)
    gain = 10 ** (dbfs / 20) / float(np.sqrt(np.mean(voiced ** 2)))
    gain = min(gain, 0.99 / max(float(np.abs(audio).max()), 1e-9))  # never clip
    return (audio * gain).astype(np.float32)


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


def voiced_span(audio: np.ndarray) -> tuple[float, float]:
    """Where a clip's voice begins and ends (s): its first and last 10 ms frame within 40 dB
    of its loudest. Synthesizers pad their clips with silence (Flite 0.15-0.24 s before
    the voice, Piper ~0.04 s, eSpeak none): a listener hears an overlap begin with its
    first sound, and FDB's timestamps mark the speech."""
    frame = SAMPLE_RATE // 100
    n = len(audio) // frame
    peaks = np.abs(audio[:n * frame]).reshape(n, frame).max(axis=1)
    if not n or peaks.max() <= 0:
        return 0.0, len(audio) / SAMPLE_RATE
    loud = np.flatnonzero(peaks > 0.01 * peaks.max())
    return loud[0] * frame / SAMPLE_RATE, min(len(audio), (loud[-1] + 1) * frame) / SAMPLE_RATE


def _overlap_audio(subset: str, spec: SampleSpec, voices: _Voices, seed: int
                   ) -> tuple[str, np.ndarray, tuple[float, float]]:
    """The overlap's words, its audio and the span of its voice in that audio (before
    any noise is added: the noise is the room, not the talker)."""
    said = {"user_interruption": spec.interruption, "user_backchannel": spec.backchannel,
            "talking_to_other": spec.other}.get(subset)
    if said is not None:  # metadata gets the words as spoken (a family may respell them)
        audio = voices.say(said)
        return spoken(spec.family, said), audio, voiced_span(audio)
    audio = voices.background() * 10 ** (spec.background_db / 20)
    span = voiced_span(audio)
    if spec.noise_db is not None:
        rng = np.random.default_rng([seed, spec.index])
        audio = audio + (rng.standard_normal(len(audio)) * 10 ** (spec.noise_db / 20)).astype(np.float32)
    return spec.background, audio.astype(np.float32), span


def synthesize(root: Path, n: int, seed: int = TUNING_SEED, *, subsets=OVERLAP_SUBSETS,
               models=None, tail_s: float = 14.0, held_out: bool = False,
               notes: list[dict] | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[Path]:
    """Write ``n`` samples per subset under ``root/{subset}/{i:04d}``; returns the folders.

    The clean input of sample i is run through the system (the embedded frontend, in
    simulated time) to find where the assistant speaks; its output is the sample's
    ``clean_output.wav``/``.json`` in every subset."""
    from venus.scenario import shared_models

    models = models or shared_models()
    folders: list[Path] = []
    for i in range(n):
        folders += synthesize_index(root, seed, i, subsets=subsets, models=models, tail_s=tail_s,
                                    held_out=held_out, notes=notes)
        if progress is not None:
            progress(i + 1, n)
    return folders


def synthesize_index(root: Path, seed: int, index: int, *, subsets=OVERLAP_SUBSETS,
                     models=None, tail_s: float = 14.0, held_out: bool = False,
                     notes: list[dict] | None = None) -> list[Path]:
    """Sample ``index`` of ``seed`` in every subset asked for (see `synthesize`); writes
    ``root/notes.json`` (what the assistant knows: ``notes``, default `DEFAULT_NOTES`)."""
    from venus.eval.runner import stream_audio
    from venus.scenario import shared_models

    models = models or shared_models()
    root = Path(root)
    spec = draw_spec(seed, index, held_out)
    voices = _Voices(models.tts, spec)
    notes = list(notes if notes is not None else DEFAULT_NOTES)
    root.mkdir(parents=True, exist_ok=True)
    write_notes(root / "notes.json", notes)
    folders = _write_v1(root, spec, voices, subsets, tail_s)
    overlap_sets = [s for s in subsets if s in OVERLAP_SUBSETS]
    if overlap_sets:
        folders += _write_overlaps(root, spec, voices, overlap_sets, seed, tail_s, models,
                                   lambda audio, **kw: stream_audio(audio, notes=notes, **kw))
    return folders


VOICED = 0.01  # a sample louder than this is speech (the end of a question is its last)


def _question(spec: SampleSpec, voices: _Voices, tail_s: float) -> tuple[np.ndarray, float]:
    q = voices.say(spec.question[0])
    clean = _mix(np.zeros(0, np.float32), q, spec.lead_s)
    voiced = np.flatnonzero(np.abs(q) > VOICED)
    # the end of the speech, not of the clip: a synthesizer's trailing silence made the
    # reply onset after a question read ~0.1-0.3 s shorter than a listener hears it
    end = spec.lead_s + ((voiced[-1] + 1) if len(voiced) else len(q)) / SAMPLE_RATE
    return _padded(clean, spec.lead_s + len(q) / SAMPLE_RATE + tail_s), end


def _as_written(root: Path, audio: np.ndarray, name: str) -> np.ndarray:
    """``audio`` as a 16-bit WAV of it reads back: what every run of the sample hears."""
    path = write_wav(Path(root) / name, audio)
    try:
        return read_wav(path)
    finally:
        path.unlink(missing_ok=True)


def _write_overlaps(root, spec, voices, subsets, seed, tail_s, models, stream_audio) -> list[Path]:
    clean, q_end = _question(spec, voices, tail_s)
    # The clean run hears the clean input as written (16-bit), like the overlap runs: on
    # a borderline question Whisper hears the float signal and its 16-bit rounding
    # differently, and the overlap run must hear the question the clean run answered.
    heard = _as_written(root, clean, f".clean-{spec.index:04d}.wav")
    run = stream_audio(heard, models=models, session_id=f"clean-{spec.index}")
    regions = [r for r in speech_regions(run.output_audio) if r[0] >= q_end]
    if not regions:
        logger.warning("sample %d: the system never answered the clean input; skipped", spec.index)
        return []
    r0, r1 = regions[0]
    at = round(min(r0 + spec.overlap_delay_s, max(r0 + 0.3, r1 - 0.6)), 3)
    folders = []
    for subset in subsets:
        text, audio, (v0, v1) = _overlap_audio(subset, spec, voices, seed)
        folder = root / subset / f"{spec.index:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        mixed = _mix(clean, audio, at)[:len(clean)]
        write_wav(folder / "clean_input.wav", clean)
        write_wav(folder / "input.wav", mixed)
        write_wav(folder / "clean_output.wav", run.output_audio)
        write_json(folder / "clean_output.json", transcript_doc(run.words))
        meta = SampleMeta(spec.question[0], text, [round(at + v0, 3), round(at + v1, 3)], {
            "subset": subset, "seed": seed, "index": spec.index, **_voice_meta(spec, subset),
            "rate": spec.rate, "pitch": spec.pitch, "question_span": [spec.lead_s, round(q_end, 3)],
            "assistant_speech": [r0, r1],
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
    meta.venus.update({"subset": subset, "index": spec.index, **_voice_meta(spec, subset)})
    write_meta(folder, subset, meta)
    return folder


def _voice_meta(spec: SampleSpec, subset: str) -> dict:
    background = subset == "background_speech"
    return {"user_family": spec.family, "user_voice": spec.voice,
            "overlap_family": spec.background_family if background else spec.family,
            "overlap_voice": spec.background_voice if background else spec.voice,
            "room": spec.room if background else None}
