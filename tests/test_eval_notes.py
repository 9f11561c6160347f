"""The evaluation's notes memory and the notes file behind `venus eval run --notes`."""

from __future__ import annotations

import json

import pytest

from venus.cli import main
from venus.errors import ConfigError
from venus.eval.notes import DEFAULT_NOTES, NotesMemory, load_notes, write_notes
from venus.eval.synth import INTERRUPTIONS, QUESTIONS, SOFT_INTERRUPTIONS


def test_every_synthesized_question_finds_the_note_it_is_about():
    memory = NotesMemory(DEFAULT_NOTES)
    topic = {"leaves": 0, "sugar": 0, "photosynthesis": 0, "sunlight": 0, "roots": 1,
             "soil": 1, "water": 1, "seeds": 2, "bees": 2, "green": 3, "eat": 3}
    for question in [q[0] for q in QUESTIONS] + list(INTERRUPTIONS) + list(SOFT_INTERRUPTIONS):
        [best] = memory.search(question, k=1)
        about = {DEFAULT_NOTES[i]["text"] for w, i in topic.items() if w in question.lower()}
        assert best.text in about, question
        assert 0 < best.score <= 1
    assert memory.search("the weather in Paris") == []
    assert memory.version == 4 and [n.start for n in memory.moments(20, 70)] == [0, 30, 60]
    assert memory.search("roots", before=30) == []  # the roots note ends at 60


def test_notes_are_long_enough_for_an_overlap():
    for note in DEFAULT_NOTES:
        assert 27 <= len(note["text"].split()) <= 31  # 9-11 s at the assistant's pace


def test_a_notes_file_round_trips_and_bad_ones_get_one_clear_error(tmp_path):
    path = write_notes(tmp_path / "notes.json", DEFAULT_NOTES)
    assert load_notes(path) == [{"start": float(n["start"]), "end": float(n["end"]), "text": n["text"]}
                                for n in DEFAULT_NOTES]
    cases = {"[]": "at least one note", "{nope": "not JSON",
             '[{"start": 0, "text": "x"}]': "end", '[{"start": 5, "end": 1, "text": "x"}]': "end >= start",
             '[{"start": 0, "end": 1, "text": "x", "extra": 1}]': "extra"}
    for body, message in cases.items():
        (tmp_path / "bad.json").write_text(body)
        with pytest.raises(ConfigError, match=message):
            load_notes(tmp_path / "bad.json")
    with pytest.raises(ConfigError, match="cannot read"):
        load_notes(tmp_path / "missing.json")


def test_eval_run_refuses_a_bad_notes_file_before_running(tmp_path, capsys):
    (tmp_path / "notes.json").write_text(json.dumps([{"start": 0}]))
    assert main(["eval", "run", str(tmp_path), "--notes", str(tmp_path / "notes.json")]) == 3
    err = capsys.readouterr().err
    assert "notes file" in err and "note 0: end: Field required" in err
