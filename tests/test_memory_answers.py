"""Answers on a real ingested clip (eSpeak speech heard by Whisper, slides read by OCR):
each kind of question, the lead evidence and its time, short text, abstention on an
empty memory, an off-topic and a future question, time anchors, and the Reranker seam."""

from __future__ import annotations

import pytest
from memory_stream import QA_LECTURE, build_stream

from memory.answering import NOT_SEEN
from memory.evidence import SAID, SHOWN, format_time
from memory.store import MemoryModels, VideoMemory

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def models():
    return MemoryModels()


@pytest.fixture(scope="module")
def clip(tmp_path_factory, models):
    chunks, truth = build_stream(QA_LECTURE)
    mem = VideoMemory.create(tmp_path_factory.mktemp("mem") / "m", models=models)
    # Live (30 s) speech batches: these tests pin answering on one hearing of the clip, and
    # Whisper tiny.en hears this eSpeak clip worse in one 2-minute file batch ("Malkano"
    # for both "volcano"s, "Fogel's emphasis" for "Photosynthesis lets"); the file batches'
    # hearing is measured by `venus bench ingest --compare` (WER), not here.
    mem.ingest(chunks, live=True)
    return mem, truth


def _sentence(truth, needle):
    return next(s for s in truth["sentences"] if needle in s["text"])


def _slide(truth, title):
    return next(s for s in truth["slides"] if s["text"].startswith(title))


def test_a_spoken_fact_is_answered_with_its_sentence_and_time(clip):
    mem, truth = clip
    said = _sentence(truth, "Zanzibar")
    reply = mem.answer("Who is our guest today?")
    assert reply.found and reply.evidence[0].kind == SAID
    assert "guest today" in reply.text.lower() and "lisbon" in reply.text.lower()
    assert len(reply.text) <= 200
    lead = reply.evidence[0]
    assert lead.start == pytest.approx(said["start"], abs=1.5)
    assert reply.text.startswith(f"At {format_time(lead.start)} it was said")
    assert reply.citations[0].start <= lead.start < reply.citations[0].end


def test_a_slide_only_fact_quotes_the_line_not_the_footer(clip):
    mem, truth = clip
    reply = mem.answer("How long is the Nile?")
    assert reply.found and reply.evidence[0].kind == SHOWN
    assert "6650 kilometres" in reply.text
    assert "Science Week" not in reply.text
    for q in ("What is the weather like in science week?", "What was on slide 3?"):
        assert "Science Week" not in mem.answer(q).text  # a footer is never quoted


def test_an_ordinary_question_gets_the_answering_sentence(clip):
    mem, _ = clip
    reply = mem.answer("What colours of light does chlorophyll absorb?")
    assert reply.found and "blue light" in reply.text.lower()
    reply = mem.answer("Where is the tallest volcano in the solar system?")
    assert reply.found and "mars" in reply.text.lower()


def test_time_anchored_questions_cite_the_moment_holding_the_time(clip):
    mem, truth = clip
    said = _sentence(truth, "evaporates")
    t = int(said["start"] + 1)
    reply = mem.answer(f"What was said at 0:{t:02d}?")
    assert reply.found and reply.citations[0].start <= t <= reply.citations[0].end
    assert "evaporate" in reply.text.lower() and reply.evidence[0].kind == SAID
    slide = _slide(truth, "Volcanoes")
    t = int(slide["start"] + 5)
    shown = mem.answer(f"What was on the slide at 0:{t:02d}?")
    assert shown.found and shown.citations[0].start <= t <= shown.citations[0].end
    assert "Volcanoes" in shown.text and "Magma rises" in shown.text
    assert all(e.kind == SHOWN for e in shown.evidence) and "Science Week" not in shown.text


def test_relative_anchors_just_now_the_start_and_after_a_slide(clip):
    mem, truth = clip
    last = truth["sentences"][-1]
    now = last["end"] + 1.0
    just = mem.answer("What did the speaker just say?", at=now)
    assert just.found and "times every day" in just.text.lower()
    start = mem.answer("What was on the slide at the start?", at=now)
    assert start.found and "Photosynthesis" in start.text
    after = mem.answer("What came after the slide about the water cycle?", at=now)
    # after the slide went away (the segment the search finds holding it may end before)
    assert after.found and after.evidence[0].start >= _slide(truth, "The Water Cycle")["end"] - 1
    assert "Water Cycle" not in after.text and "6650" not in after.text


def test_abstains_on_an_off_topic_question(clip):
    mem, _ = clip
    for q in ("What is the capital of Australia?", "Who won the football world cup in 2014?"):
        reply = mem.answer(q)
        assert not reply.found and reply.text == NOT_SEEN and not reply.evidence


def test_abstains_on_a_question_about_what_comes_later(clip):
    mem, truth = clip
    before = _slide(truth, "Volcanoes")["start"] - 1.0
    reply = mem.answer("Where is the tallest volcano in the solar system?", at=before)
    assert not reply.found and "mars" not in reply.text.lower()
    ahead = mem.answer("What was on the slide at 0:55?", at=20.0)
    assert not ahead.found and "haven't seen that part yet" in ahead.text
    assert all(m.end <= 20.0 + 1e-6 for m in ahead.citations)


def test_abstains_on_an_empty_memory(tmp_path, models):
    mem = VideoMemory.create(tmp_path / "empty", models=models)
    for q in ("What is photosynthesis?", "What was said at 0:10?", "What just happened?"):
        reply = mem.answer(q)
        assert not reply.found and not reply.citations and not reply.evidence


def test_a_reranker_from_a_local_path_takes_part(clip, tmp_path, models):
    """A SQuAD 2.0 style model (tiny, random weights) rescoring the units: its
    no-answer verdict is honoured, and every reply is still well formed."""
    from test_models_rerank import _tiny

    from memory.models import ExtractiveQAReranker

    mem, _ = clip
    reranker = ExtractiveQAReranker(_tiny(tmp_path, "qa"))
    mem.models.reranker = reranker
    try:
        reply = mem.answer("Who is our guest today?")
        assert "no_answer" in reply.extras
        assert reply.found == (not reply.extras["no_answer"]
                               and reply.extras["score"] >= mem.options.answer.min_score)
        assert reply.text == NOT_SEEN or reply.text.startswith("At ")
    finally:
        mem.models.reranker = None


def test_quiz_and_summary_on_the_real_clip_speak_video_time(clip):
    """The built-in capabilities on this memory through the real harness, asked in a
    session whose clock ran on past the clip (file mode): video time, every question
    with its answer, slide titles listed, footers never used."""
    from test_capabilities import run_builtin

    from venus.capabilities.text import clock_label

    mem, truth = clip
    end = clock_label(mem.duration)
    quiz, _ = run_builtin("make_quiz", {"start": 0.0, "questions": 3}, at=90, memory=mem,
                          seconds=100)
    assert quiz.ok, quiz.error
    questions = quiz.data["questions"]
    assert len(questions) == 3 and f"on 0:00-{end}" in quiz.summary
    for i, q in enumerate(questions, 1):
        assert q["answer"] in q["options"] and 0.0 <= q["time"] <= mem.duration
        assert f"{i}. {q['answer']} ({clock_label(q['time'])})" in quiz.summary
        assert "Science Week" not in q["source"]
    summary, _ = run_builtin("summarize_range", {}, at=90, memory=mem, seconds=100)
    assert summary.ok and summary.summary.startswith(f"From 0:00 to {end}:")
    assert summary.data["titles"][:2] == ["Photosynthesis", "The Water Cycle"]
    assert "Science Week" not in summary.summary


def test_a_misspelt_term_is_still_answered(clip):
    mem, _ = clip
    # a user's typos (without the near-term credit this abstained: score 0.865)
    reply = mem.answer("Which planet has the talest volcanoe?")
    assert reply.found and "mars" in reply.text.lower()
    # Whisper's spelling in the transcript ("Clorophyll"; abstained at 0.75 without it)
    reply = mem.answer("What does chlorophyll take in?")
    assert reply.found and "blue light" in reply.text.lower()
    for q in ("What do cats absorb?", "Who is the tallest basketball player?"):
        assert not mem.answer(q).found


def test_a_question_naming_something_the_moment_never_names_abstains(clip):
    """Same words, another name: the Amazon is not the Nile, Venus is not Mars, the
    Earth's spin is not the heartbeat (each was answered with the other's unit, scoring
    0.90-1.17, before a question's names had to be named in the moment)."""
    mem, _ = clip
    assert mem.answer("How long is the Nile?").found
    for q in ("How long is the Amazon?", "Which volcano on Venus is the tallest?",
              "How many times does the Earth spin every day?",
              "Where is professor Moriarty from?"):
        reply = mem.answer(q)
        assert not reply.found and reply.text == NOT_SEEN, (q, reply.text)


def test_a_line_shown_is_timed_from_when_it_appeared(clip):
    """A slide line is quoted with the time it came on screen, not the start of the
    segment the search found it in ("At 0:24 the screen showed: 'The Nile is 6650
    kilometres long'" for a slide shown from 0:14)."""
    mem, truth = clip
    for question, title in (("How long is the Nile?", "The Water Cycle"),
                            ("How many chambers pump blood?", "The Human Heart")):
        reply = mem.answer(question)
        lead = reply.evidence[0]
        slide = _slide(truth, title)
        assert reply.found and lead.kind == SHOWN, reply.text
        assert lead.start == pytest.approx(slide["start"], abs=1.0), reply.text
        assert reply.text.startswith(f"At {format_time(lead.start)} the screen showed")
        assert lead.end <= mem.duration + 1e-6
