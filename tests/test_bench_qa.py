"""The answer benchmark's data and scoring rules (the run itself is `venus bench qa`)."""

from __future__ import annotations

import pytest

from memory.answering import NOT_SEEN
from memory.benchmarks.qa import (
    SPLITS,
    QAQuestion,
    QAResult,
    calibrate,
    contains,
    normalize,
    qa_script,
    questions,
    score,
    summarize,
)
from memory.evidence import Answer, Moment


def test_a_reader_accepts_numbers_and_spellings_either_way():
    assert contains("Sound travels about 340 metres per second", ["three hundred and forty"])
    assert contains("about twenty thousand genes", ["20,000"])
    assert contains("the vapour cools", ["vapor cools"])
    assert not contains("about 34 metres", ["340"])
    assert not contains("the Himalayas", ["himalayan mountains"])
    assert normalize("Berners-Lee's web") == ["berners", "lee's", "web"]


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_every_fact_is_where_its_kind_says(name):
    """Spoken facts are said and not shown, slide facts shown and not said, and every
    topic has its questions; no two splits share a topic or a seed."""
    split = SPLITS[name]
    topics = {t[0]: t for t in split.topics}
    assert set(topics) == set(split.qa)
    for title, qa in split.qa.items():
        _, bullets, narration = topics[title]
        shown = " ".join([title, *bullets])
        assert any(contains(s, qa.spoken[1]) for s in narration), title
        assert not contains(shown, qa.spoken[1]), title
        assert contains(qa.slide[0], qa.slide[2]) and not contains(" ".join(narration),
                                                                   qa.slide[2]), title
        assert contains(" ".join([*narration, shown]), qa.content[1]), title
    for a in SPLITS:  # no two splits share a topic, a seed, or both topic set and voice
        for b in SPLITS:
            if a < b:
                assert not set(SPLITS[a].qa) & set(SPLITS[b].qa), (a, b)
                assert SPLITS[a].seed != SPLITS[b].seed, (a, b)
    # held-out is apart from tuning by voice family too (the splits rules are written on)
    family = {n: s.voice.partition(":")[0] for n, s in SPLITS.items()}
    assert family["held-out"] != family["tuning"] and family["tuning"] != family["dev"]


def _truth(split):
    script = qa_script(split)
    slides, sentences, t = [], [], 0.0
    for i, slide in enumerate(script.slides):
        start = t
        for text in slide.narration:
            sentences.append({"slide": i, "text": text, "start": t + 1, "end": t + 4})
            t += 4
        t = max(t + 1, start + slide.min_seconds)
        slides.append({"index": i, "start": start, "end": t, "title": slide.title})
    return {"slides": slides, "sentences": sentences, "duration": t}


def test_questions_of_each_kind_with_their_times():
    split = SPLITS["tuning"]
    truth = _truth(split)
    qs = questions(split, truth)
    kinds = {q.kind for q in qs}
    assert kinds == {"spoken", "slide", "content", "time_said", "time_slide", "off_topic",
                     "future"}
    n = len(truth["slides"])
    for q in qs:
        if q.kind == "future":  # asked before its slide, about a later topic
            slide = next(s for s in truth["slides"] if s["title"] == q.topic)
            assert q.ask_at < slide["start"] and slide["index"] >= n // 2
        if q.kind in ("time_said", "time_slide"):
            assert q.span[0] - 1 <= q.anchor <= q.span[1] + 1 and q.ask_at is None
    assert sum(q.kind == "future" for q in qs) == 2 * (n - n // 2)


def _result(kind, score, contains_=True, found=True, anchored=None):
    q = QAQuestion(kind, f"{kind}?", None, ("x",))
    return QAResult(q, 100.0, found, "At 0:01 it was said: x." if found else NOT_SEEN, score,
                    contains_, anchored, None)


def test_summary_and_calibration_on_scores():
    results = [_result("spoken", s) for s in (0.9, 1.0, 1.1, 1.2)] + \
        [_result("off_topic", s, False) for s in (0.3, 0.5, 0.95)] + \
        [_result("time_said", 1.0, anchored=True), _result("time_slide", 1.0, anchored=False)]
    threshold, table = calibrate(results)
    assert 0.5 < threshold < 0.9  # answers everything answerable, abstains on 2 of 3
    at = summarize(results, threshold)
    assert at["key_accuracy"]["spoken"] == 1.0 and at["false_abstention"] == 0.0
    assert at["abstention_accuracy"] == pytest.approx(2 / 3)
    assert at["time_anchor_accuracy"] == 0.5
    strict = summarize(results, 1.05)  # a higher threshold trades answers for abstentions
    assert strict["abstention_accuracy"] == 1.0 and strict["false_abstention"] > 0
    assert all(0 <= row["false_abstention"] <= 1 for row in table)


def test_calibration_takes_the_widest_gap_that_meets_the_targets():
    """Every cut between 0.80 and 1.30 abstains on all 20 off-topic questions and answers
    all 20 answerable ones; the widest gap (0.90-1.30) is where the cut goes, not the
    narrow one (0.80-0.90) just above the off-topic scores."""
    results = [_result("spoken", s) for s in [0.9] + [1.3 + 0.01 * i for i in range(19)]] + \
        [_result("off_topic", s, False) for s in [0.8] + [0.4 + 0.01 * i for i in range(19)]]
    threshold, table = calibrate(results)
    assert threshold == pytest.approx(1.1)
    row = next(r for r in table if r["threshold"] == threshold)
    assert row["abstention_accuracy"] == 1.0 and row["false_abstention"] == 0.05
    assert row["margin"] == pytest.approx(0.2)


def test_the_ranker_ladder_adds_rules_up_to_the_default():
    """``--scorers all``: the benchmark's ladder (not the library's) builds `RuleRanker`
    up one step at a time from the embedding alone; its last step is the default."""
    from memory.answering import AnswerOptions
    from venus.bench import qa as bench_qa

    steps = list(bench_qa.ladder().values())
    assert steps[0].features == {"dense"} and steps[-1] == AnswerOptions().ranker
    assert all(a.features <= b.features for a, b in zip(steps, steps[1:]))
    chosen = bench_qa._rankers("all", held_out=False)
    assert list(chosen)[-1] == "default" and len(chosen) == len(steps)
    assert list(bench_qa._rankers("all", held_out=True)) == ["default"]
    with pytest.raises(SystemExit, match="unknown scorer"):
        bench_qa._rankers("full-echo1", held_out=False)


def test_a_kept_memory_is_tied_to_the_ingest_code(tmp_path, monkeypatch):
    """The bench reuses a memory only if the code that built it is the code running now:
    any byte changed in an ingest module changes the fingerprint in its stamp."""
    import memory
    from venus.bench import qa as bench_qa

    before = bench_qa.ingest_fingerprint()
    assert before == bench_qa.ingest_fingerprint()  # deterministic
    root = tmp_path / "pkg"
    for rel in ("memory/store/speech.py", "memory/models/asr.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    (root / "memory" / "__init__.py").write_text("")
    monkeypatch.setattr(memory, "__file__", str(root / "memory" / "__init__.py"))
    copy = bench_qa.ingest_fingerprint()
    assert copy != before
    (root / "memory/store/speech.py").write_text("x = 2\n")
    assert bench_qa.ingest_fingerprint() != copy
    (root / "memory/answering").mkdir()
    (root / "memory/answering/rules.py").write_text("an answering change keeps the memory\n")
    (root / "memory/store/speech.py").write_text("x = 1\n")
    assert bench_qa.ingest_fingerprint() == copy


def _reply(found, cited, text="At 0:41 it was said: the Calvin cycle fixes carbon dioxide."):
    citations = tuple(Moment(a, b, 1.0, "") for a, b in cited)
    return Answer("q?", text if found else NOT_SEEN, citations, 100.0,
                  extras={"score": 1.0}, found=found)


def test_a_fact_moment_is_right_when_the_first_citation_holds_it_heard_right_or_not():
    q = QAQuestion("spoken", "What does the Calvin cycle fix?", None, ("carbon dioxide",),
                   (40.0, 44.0))
    right = score(q, _reply(True, [(30.0, 42.0), (90.0, 99.0)]), None, 1.0)
    misheard = score(q, _reply(True, [(38.0, 50.0)], "At 0:41 it was said: carbon diarchy."),
                     None, 1.0)
    second = score(q, _reply(True, [(60.0, 70.0), (40.0, 44.0)]), None, 1.0)
    abstained = score(q, _reply(False, [(40.0, 44.0)]), None, 1.0)
    assert (right.moment, misheard.moment, second.moment) == (True, True, False)
    assert misheard.contains is False and abstained.moment is True  # counted only if found
    at = summarize([right, misheard, second, abstained])
    assert at["moment_accuracy"] == {"spoken": 0.5}
    assert score(QAQuestion("off_topic", "q?"), _reply(True, [(1, 2)]), None, 1).moment is None


def test_key_accuracy_on_held_facts_leaves_the_misheard_ones_out():
    results = [_result("slide", 1.0), _result("slide", 1.0, contains_=False),
               _result("slide", 1.0, contains_=False)]
    results[0].heard, results[1].heard, results[2].heard = True, True, False
    at = summarize(results)
    assert at["key_accuracy"]["slide"] == pytest.approx(1 / 3)
    assert at["key_accuracy_heard"]["slide"] == 0.5
    assert at["missed_heard"]["slide"] == 1 and at["missed_unheard"]["slide"] == 1
