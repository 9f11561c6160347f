"""Evidence units: sentences cut from timed words, screen lines with their time on screen,
and the typed model slots of `MemoryModels`."""

from __future__ import annotations

from memory.evidence import SAID, SHOWN
from memory.models.base import Word
from memory.store import MemoryModels
from memory.store.records import ChunkRecord
from memory.store.units import build_units, sentences, stitched, template, trailing_fragment


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


def test_a_sentence_without_punctuation_is_cut_at_thirty_words():
    got = sentences(_words(" ".join(["word"] * 70), 0.0, step=0.2))
    assert [len(s[0].split()) for s in got] == [30, 30, 10]


def test_unpunctuated_speech_is_cut_at_pauses_and_capitalised_openers():
    """Whisper tiny writes "... how loud the sound is Sound travels ... in air It moves
    faster" or joins sentences with commas; pauses and openers still separate them."""
    words = _words("the sun heats oceans and lakes,", 0.0) + \
        _words("and water evaporates as vapour", 3.5) + \
        _words("sound travels fast in air It moves faster in water", 7.0, step=0.25)
    assert [s[0] for s in sentences(words)] == [
        "the sun heats oceans and lakes", "and water evaporates as vapour",
        "sound travels fast in air", "It moves faster in water"]
    assert len(sentences(_words("Burning coal,", 0.0) + _words("oil and gas.", 1.4))) == 1
    run = ("while water moves in a cycle, the sun heats oceans and lakes, and water turns "
           "to vapour, as the vapour rises it cools and condenses into clouds,")
    assert [s[0] for s in sentences(_words(run, 0.0))] == [
        "while water moves in a cycle", "the sun heats oceans and lakes",
        "and water turns to vapour", "as the vapour rises it cools and condenses into clouds"]
    assert [s[0] for s in sentences(_words("we went to Lisbon The city", 0.0))] == \
        ["we went to Lisbon", "The city"]
    assert len(sentences(_words("we met Professor Zanzibar today", 0.0))) == 1


def test_a_sentence_cut_by_a_segment_boundary_is_said_whole_by_the_next_segment():
    first = _words("Only ten percent passes on.", 0.0) + _words("When wolves returned, rivers", 2.0)
    second = _words("and forests changed too.", 3.2)
    carry = trailing_fragment(first)
    assert " ".join(w.text.strip() for w in carry) == "When wolves returned, rivers"
    units = build_units([_chunk(1, 1, "", second)], 1, carry)
    assert [u.text for u in units] == ["When wolves returned, rivers and forests changed too."]
    assert units[0].start == 2.0
    assert stitched(units, carry) == 2.0  # the first segment drops its fragment
    assert trailing_fragment(second) == ()  # it ended: nothing to carry on
    done = build_units([_chunk(1, 1, "", _words("New topic here.", 9.0))], 1,
                       trailing_fragment(_words("a clause before a long pause,", 0.0)))
    assert [u.text for u in done] == ["New topic here."]  # a pause: the fragment stays put


def _chunk(i: int, keyframe: int, ocr: str, words=()) -> ChunkRecord:
    return ChunkRecord(i, float(i), float(i + 1), tuple(words), keyframe, ocr)


def test_screen_lines_last_as_long_as_they_stay_on_screen():
    slide = "Acids and Bases\n- The pH scale runs from zero to fourteen\nTour | slide 3"
    build = slide + "\n• Neutralisation makes salt"
    chunks = [_chunk(i, 10, slide) for i in range(10, 14)] + \
        [_chunk(i, 14, build, _words("Acids taste sour.", i + 0.1)) for i in range(14, 16)]
    units = build_units(chunks, segment_id=7)
    shown = {u.text: u for u in units if u.kind == SHOWN}
    assert (shown["Acids and Bases"].start, shown["Acids and Bases"].end) == (10.0, 16.0)
    assert (shown["Neutralisation makes salt"].start, shown["Neutralisation makes salt"].end) \
        == (14.0, 16.0)
    assert shown["Tour | slide 3"].template == "tour | slide #" == template("Tour | Slide 12")
    assert "The pH scale runs from zero to fourteen" in shown  # bullet marks dropped
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
