"""`memory.NotesMemory`: timed notes searched with the real MiniLM embedder."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from memory import NotesMemory
from memory.errors import NotesError
from memory.models import MiniLMEmbedder

NOTES = [
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called photosynthesis."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil."},
    {"start": 60, "end": 90, "text": "Bees carry pollen from flower to flower, which lets plants make seeds."},
]


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def notes(embedder):
    return NotesMemory(NOTES, embedder=embedder)


def test_search_ranks_by_meaning_not_shared_words(notes):
    # "How do plants get water?" shares no content word with the roots note but means it.
    hits = notes.search("How do plants get water?", k=3)
    assert [h.start for h in hits][0] == 30
    assert hits[0].score > hits[1].score >= hits[2].score
    assert hits[0].level == "note" and hits[0].text.startswith("Roots")


def test_search_matches_a_brute_force_cosine(notes, embedder):
    # a note scores as the best of its whole text and, when it has more than one, its
    # clauses (3 words or more)
    question = "Which insects move pollen?"
    q = embedder.embed([question])[0]
    expected = []
    for note in NOTES:
        parts = [c.strip(" .;:,!?") for c in re.split(r"[.;:,!?]+\s+", note["text"])
                 if len(c.split()) >= 3]
        texts = [note["text"], *(parts if len(parts) > 1 else [])]
        expected.append(max(embedder.embed(texts) @ q))
    expected = np.array(expected)
    hits = notes.search(question, k=3)
    assert [h.score for h in hits] == pytest.approx(sorted(expected.tolist(), reverse=True), abs=1e-5)
    assert hits[0].start == NOTES[int(np.argmax(expected))]["start"]


def test_answer_quotes_the_best_note_with_its_time(notes):
    answer = notes.answer("What do the roots do?", at=12.0)
    assert answer.text == "At 0:30, Roots take up water and minerals from the soil."
    assert answer.citations[0].start == 30 and answer.asked_at == 12.0


def test_an_unrelated_question_is_not_answered_from_a_note(notes):
    answer = notes.answer("What will the weather be like tomorrow in the north?")
    assert answer.text == "I have not seen anything about that yet." and answer.citations == ()


def test_before_and_moments_follow_media_time(notes):
    assert [h.start for h in notes.search("roots and soil", k=3, before=60)] == [30, 0]
    assert [m.start for m in notes.moments(25, 61)] == [0, 30, 60]
    assert notes.version == 3


def test_notes_from_a_json_file(tmp_path, embedder):
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(NOTES))
    loaded = NotesMemory.from_json(path, embedder=embedder)
    assert [n.text for n in loaded.notes] == [n["text"] for n in NOTES]


@pytest.mark.parametrize("doc, message", [
    ({"start": 0}, "must hold a JSON list"),
    ([{"start": 0, "end": 1}], "has no 'text'"),
    ([{"start": "soon", "end": 1, "text": "x"}], "must be numbers"),
    ([{"start": 5, "end": 1, "text": "x"}], "need 0 <= start <= end"),
    ([{"start": 0, "end": 1, "text": "x", "speaker": "me"}], "unknown field"),
    (["just text"], "must be an object"),
])
def test_malformed_notes_get_one_clear_error(tmp_path, doc, message):
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(NotesError, match=message):
        NotesMemory.from_json(path)


def test_a_missing_or_broken_file_names_the_problem(tmp_path):
    with pytest.raises(NotesError, match="cannot read the notes file"):
        NotesMemory.from_json(tmp_path / "nope.json")
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(NotesError, match="is not JSON"):
        NotesMemory.from_json(tmp_path / "bad.json")


LONG_NOTES = [
    {"start": 0, "end": 30, "text": "Leaves make sugar from sunlight in a process called photosynthesis: "
     "their chlorophyll catches the light, and the leaf joins carbon dioxide and water into sugar, giving off oxygen."},
    {"start": 30, "end": 60, "text": "Roots take up water and minerals from the soil through millions of tiny "
     "root hairs and anchor the plant; that water comes up through the stem to the leaves."},
    {"start": 60, "end": 90, "text": "Bees carry pollen from flower to flower while they collect nectar, which "
     "lets plants make seeds; each seed holds a tiny new plant and a store of food."},
]


@pytest.mark.parametrize("question", ["How do plants make seeds?", "Where do seeds come from?"])
def test_a_question_about_one_clause_of_a_long_note_finds_that_note(embedder, question):
    # The bees note says how plants make seeds in one clause; its whole text is mostly
    # about bees, so one vector per note ranked the roots note first. Clauses are
    # searched too: a note scores as its best clause or its whole text.
    memory = NotesMemory(LONG_NOTES, embedder=embedder)
    assert memory.search(question, k=1)[0].start == 60
    assert memory.answer(question).text.startswith("At 1:00, Bees carry pollen")
