"""Whisper hears each speech region after the text the screen showed while it was said."""

from __future__ import annotations

import numpy as np
import pytest
from memory_stream import draw

from memory.media import SAMPLE_RATE, Frame, VideoChunk
from memory.models.base import SpeechRegion, TextBox, Transcript, TranscriptSegment
from memory.store.config import StoreOptions
from memory.store.speech import SpeechBatcher, SpeechOptions, screen_prompt_text
from memory.store.timing import StageTimes


class _PromptedASR:
    """A Transcriber that records the regions and prompts it is given (a fake)."""

    def __init__(self):
        self.calls: list[tuple[list[tuple[float, float]], list[str] | None]] = []

    def transcribe(self, audio, offset=0.0):
        return self.transcribe_batch([(audio, offset)])[0]

    def transcribe_batch(self, items, prompts=None):
        self.calls.append(([(round(o, 2), round(o + len(a) / SAMPLE_RATE, 2)) for a, o in items],
                           None if prompts is None else list(prompts)))
        return [Transcript((TranscriptSegment("word", o, o + 0.5),)) for a, o in items]


class _FixedVAD:
    def __init__(self, regions):
        self.regions = regions

    def detect(self, audio):
        return [SpeechRegion(a, min(b, len(audio) / SAMPLE_RATE)) for a, b in self.regions
                if a < len(audio) / SAMPLE_RATE]


def _stream(images):
    return [VideoChunk(i, float(i), float(i + 1), (Frame(i + 0.5, image),),
                       np.zeros(SAMPLE_RATE, np.float32)) for i, image in enumerate(images)]


def test_screen_text_becomes_one_sentence_per_line_without_bullets_or_footers():
    ocr = ("The Aztecs\n- An empire in central Mexico\n\u2022 Cocoa beans were money.\n"
           "Things Worth Knowing | slide 2\n12")
    assert screen_prompt_text(ocr) == \
        "The Aztecs. An empire in central Mexico. Cocoa beans were money."
    assert screen_prompt_text("") == ""


@pytest.mark.parametrize("on", [True, False])
def test_each_region_is_prompted_with_the_screen_shown_while_it_was_said(on):
    asr = _PromptedASR()
    batcher = SpeechBatcher(_FixedVAD([(3.0, 9.0), (13.0, 18.0), (25.0, 32.0)]), asr,
                            SpeechOptions(batch_seconds=40, max_batch_seconds=60,
                                          screen_prompt=on), workers=False)
    batcher.screen = lambda c: (lambda: "The Aztecs" if c.index < 15 else
                                "- Chess\nTheir game | slide 2")
    out = []
    for c in _stream([np.zeros((4, 4, 3), np.uint8)] * 40):
        out += batcher.push(c)
    out += batcher.flush()
    assert len(out) == 40
    regions = [(2.8, 9.2), (12.8, 18.2), (24.8, 32.2)]
    if on:  # the middle region was said over both slides
        assert asr.calls == [(regions, ["The Aztecs.", "The Aztecs. Chess.", "Chess."])]
    else:
        assert asr.calls == [(regions, None)]


def test_a_transcriber_without_prompts_is_called_as_before():
    class _Plain(_PromptedASR):
        def transcribe_batch(self, items):
            return super().transcribe_batch(items)

    asr = _Plain()
    batcher = SpeechBatcher(_FixedVAD([(3.0, 9.0)]), asr, SpeechOptions(batch_seconds=20),
                            workers=False)
    batcher.screen = lambda c: (lambda: "The Aztecs")
    for c in _stream([np.zeros((4, 4, 3), np.uint8)] * 20):
        batcher.push(c)
    batcher.flush()
    assert asr.calls == [([(2.8, 9.2)], None)]


_SLIDES = {(200, 30, 30): "The Aztecs\n- Cocoa beans as money",
           (30, 30, 200): "Chess\n- Checkmate ends the game"}


class _ColourOCR:
    """A TextReader reading a slide's text from its background colour (a fake)."""

    def read(self, image):
        colour = tuple(int(v) for v in image[2, 2])
        text = _SLIDES.get(colour, "")
        return [TextBox(line, (0, 20.0 * i, 100, 20.0 * i + 15), 0.99)
                for i, line in enumerate(text.splitlines())]


@pytest.mark.parametrize("workers", [True, False])
def test_the_pipeline_prompts_whisper_with_the_ocr_of_the_key_frame_on_screen(workers):
    from memory.store import MemoryModels
    from memory.store.pipeline import ChunkPipeline

    asr = _PromptedASR()
    models = MemoryModels(vad=_FixedVAD([(3.0, 9.0), (24.0, 30.0)]), asr=asr, ocr=_ColourOCR())
    options = StoreOptions(speech=SpeechOptions(batch_seconds=40, max_batch_seconds=60),
                           workers=workers)
    red, blue = draw("", (200, 30, 30)), draw("", (30, 30, 200))
    pipeline = ChunkPipeline(models, options, StageTimes())
    try:
        batches = [b for c in _stream([red] * 20 + [blue] * 20) for b in pipeline.push(c)]
        batches += pipeline.flush()
    finally:
        pipeline.close()
    assert sum(len(b.records) for b in batches) == 40
    assert asr.calls == [([(2.8, 9.2), (23.8, 30.2)],
                          ["The Aztecs. Cocoa beans as money.",
                           "Chess. Checkmate ends the game."])]


# -- the real Whisper tiny.en ------------------------------------------------------------

def _said(text: str) -> np.ndarray:
    from memory.models.tts import EspeakSynthesizer

    audio = EspeakSynthesizer().synthesize(text).audio
    pad = np.zeros(SAMPLE_RATE // 2, np.float32)
    return np.concatenate([pad, audio, pad])


def _heard(transcript: Transcript) -> str:
    return " ".join(s.text for s in transcript.segments).lower()


@pytest.mark.slow
def test_a_word_on_the_slide_is_heard_as_the_slide_spells_it():
    from memory.models import WhisperTranscriber

    asr = WhisperTranscriber()
    audio = _said("Cocoa beans were so valuable that they were used as money.")
    plain, prompted = (asr.transcribe_batch([(audio, 0.0)], prompts=p)[0]
                       for p in (None, ["The Aztecs. Cocoa beans as money."]))
    assert "cocoa" not in _heard(plain)  # tiny.en alone: "Co-co-beast"
    assert "cocoa beans" in _heard(prompted)


def _music(seconds: float, seed: int = 0) -> np.ndarray:
    """A few seconds of chords with a beat and a little noise: not speech."""
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    rng = np.random.default_rng(seed)
    chords = sum(np.sin(2 * np.pi * f * t) for f in (220.0, 277.2, 329.6, 440.0))
    beat = 0.5 + 0.5 * (np.sin(2 * np.pi * 2.0 * t) > 0)
    return (0.08 * chords * beat + 0.01 * rng.standard_normal(t.size)).astype(np.float32)


@pytest.mark.slow
def test_a_prompt_is_not_copied_into_audio_that_does_not_say_it():
    from memory.models import WhisperTranscriber

    asr = WhisperTranscriber()
    slide = ("The Aztecs. Tenochtitlan stood on Lake Texcoco. Moctezuma the Second. "
             "Cocoa beans as money. Chinampas were floating gardens.")
    shown = {"aztecs", "tenochtitlan", "texcoco", "moctezuma", "cocoa", "chinampas",
             "floating", "gardens"}
    speech = _said("The roots of a plant take up water and minerals from the soil.")
    quiet = (0.002 * np.random.default_rng(1).standard_normal(4 * SAMPLE_RATE)).astype(np.float32)
    items = [(speech, 0.0), (_music(6.0), 20.0), (quiet, 40.0), (_music(3.0, 2), 60.0)]
    got = asr.transcribe_batch(items, prompts=[slide] * len(items))  # one window
    for alone in items[1:]:  # and each without speech, a window of its own
        got += asr.transcribe_batch([alone], prompts=[slide])
    said = _heard(got[0])
    assert "roots" in said and "soil" in said
    for transcript in got:
        words = {"".join(ch for ch in w.text.lower() if ch.isalnum())
                 for s in transcript.segments for w in s.words}
        assert not words & shown, (_heard(transcript), words & shown)


@pytest.mark.slow
def test_a_prompted_window_that_stops_early_is_heard_again_without_its_prompt(tmp_path):
    """The sample lecture's DNA slide: after the slide's text, tiny.en heard "The rungs are
    made of four bases called adenine, ..." as "... called addling, I'm an A genetic test
    is a genetic" and stopped; the rest of the window, decoded again after the same
    prompt, read "test.", and three sentences were lost in every ingest (and in `venus
    demo`). The unheard rest is decoded again without the prompt, and is heard."""
    from memory import VideoMemory
    from memory.samples import make_lecture

    files = make_lecture(3.0, 0, tmp_path / "lecture")
    mem = VideoMemory.create(tmp_path / "mem")
    mem.ingest(files.video)
    said = " ".join(m.transcript for m in mem.moments(80.0, 127.0)).lower()
    mem.close()
    assert "stretch of dna" in said and "human cells contain" in said and "mutations" in said, said
