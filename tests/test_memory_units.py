"""Evidence units: sentences cut from timed words, screen lines with their time on screen,
and the typed model slots of `MemoryModels`."""

from __future__ import annotations

from memory.evidence import SAID, SHOWN
from memory.models.base import Word
from memory.store import MemoryModels
from memory.store.records import ChunkRecord
from memory.store.units import build_units, sentences, template


def _words(text: str, start: float, step: float = 0.3) -> list[Word]:
    return [Word(f" {w}", start + i * step, start + i * step + 0.25)
            for i, w in enumerate(text.split())]


def test_sentences_are_cut_at_punctuation_and_long_pauses():
    words = _words("Plants need light. They also need water", 0.0) + \
        _words("Roots take up minerals!", 5.0)
    got = sentences(words)
    assert [s[0] for s in got] == ["Plants need light.", "They also need water",
                                   "Roots take up minerals!"]
    assert got[0][1] == 0.0 and got[0][2] == 0.85
    assert got[2][1] == 5.0


def test_a_sentence_without_punctuation_is_cut_at_forty_words():
    got = sentences(_words(" ".join(["word"] * 90), 0.0, step=0.2))
    assert [len(s[0].split()) for s in got] == [40, 40, 10]


def _chunk(i: int, keyframe: int, ocr: str, words=()) -> ChunkRecord:
    return ChunkRecord(i, float(i), float(i + 1), tuple(words), keyframe, ocr)


def test_screen_lines_last_as_long_as_they_stay_on_screen():
    slide = "Acids and Bases\nThe pH scale runs from zero to fourteen\nTour | slide 3"
    build = slide + "\nNeutralisation makes salt"
    chunks = [_chunk(i, 10, slide) for i in range(10, 14)] + \
        [_chunk(i, 14, build, _words("Acids taste sour.", i + 0.1)) for i in range(14, 16)]
    units = build_units(chunks, segment_id=7)
    shown = {u.text: u for u in units if u.kind == SHOWN}
    assert (shown["Acids and Bases"].start, shown["Acids and Bases"].end) == (10.0, 16.0)
    assert (shown["Neutralisation makes salt"].start, shown["Neutralisation makes salt"].end) \
        == (14.0, 16.0)
    assert shown["Tour | slide 3"].template == "tour | slide #" == template("Tour | Slide 12")
    said = [u for u in units if u.kind == SAID]
    assert len(said) == 2 and all(u.segment_id == 7 for u in units)


def test_model_slots_are_typed_and_loaded_only_when_read():
    class Embedder:
        dim = 3

        def embed(self, texts):
            raise AssertionError("not called")

    fake = Embedder()
    models = MemoryModels(embedder=fake)
    assert models.embedder is fake
    assert "asr=default" in repr(models)  # repr loads nothing
    assert models.captioner is None and models.reranker is None
