"""The watch matcher (`memory.watch`): whole words, causal, once by default."""

from __future__ import annotations

from dataclasses import dataclass

from memory.evidence import Evidence
from memory.watch import WatchCondition, Watcher, WatchOptions, coverage, watch_memory


@dataclass
class Source:
    """A finished memory as a causal one: units known once they end (the open stretch
    is not modelled: a unit is whole or absent)."""

    units: list[Evidence]

    @property
    def duration(self) -> float:
        return max(u.end for u in self.units) + 10.0

    def evidence(self, start, end):
        return [u for u in self.units if u.end > start and u.end <= end]


def said(text, start, end=None):
    return Evidence("said", text, start, start + 3.0 if end is None else end)


def shown(text, start, end=None):
    return Evidence("shown", text, start, start + 1.0 if end is None else end)


def test_the_request_is_cut_down_to_what_to_watch_for():
    c = WatchCondition.parse("he starts talking about the exam topics")
    assert c.terms == ("exam",)
    assert WatchCondition.parse("the slide about photosynthesis comes up").modality == "shown"
    assert WatchCondition.parse("anyone mentions the deadline").terms == ("deadlin",)
    assert WatchCondition.parse("a dog walks in").modality == "seen"


def test_chess_does_not_fire_on_chest():
    c = WatchCondition.parse("he mentions chess")
    assert coverage(c, "He pressed a hand to his chest.") == 0.0
    assert coverage(c, "Chess is a game for two players.") == 1.0
    w = Watcher(c)
    assert w.feed([said("He pressed a hand to his chest.", 0)], 5.0) == []
    assert [m.start for m in w.feed([said("Chess openings come next.", 6)], 10.0)] == [6]


def test_a_watch_fires_once_by_default_and_every_time_keeps_it():
    units = [said("The deadline is Friday.", 10), said("Remember the deadline.", 60),
             said("Again, the deadline!", 120)]
    once = Watcher(WatchCondition.parse("anyone mentions the deadline"))
    always = Watcher(WatchCondition.parse("anyone mentions the deadline"), every_time=True)
    alerts = watch_memory(Source(units), [once, always])
    assert [m.start for m in once.fired] == [10]
    assert [m.start for m in always.fired] == [10, 60, 120]
    assert len(alerts) == 4


def test_only_what_was_committed_is_read():
    w = Watcher(WatchCondition.parse("the exam"))
    future = said("The exam covers chapter three.", 20.0, 24.0)
    assert w.feed([future], 22.0) == []  # it ends after the horizon: not yet heard
    assert w.step(Source([future]), 23.0) == []
    [alert] = w.step(Source([future]), 24.0)
    assert alert.at == 24.0 and alert.start == 20.0


def test_alerts_come_at_the_chunk_the_evidence_is_complete():
    units = [said("Now for the exam.", 30.2, 32.4)]
    [alert] = watch_memory(Source(units), [Watcher(WatchCondition.parse("the exam"))])
    assert alert.at == 33.0
    assert alert.sentence() == "At 0:30: \u201cNow for the exam.\u201d"


def test_a_watch_set_halfway_is_about_what_comes_next():
    units = [said("Photosynthesis makes sugar.", 10), said("Back to photosynthesis.", 200)]
    w = Watcher(WatchCondition.parse("photosynthesis"), since=100.0)
    watch_memory(Source(units), [w])
    assert [m.start for m in w.fired] == [200]


def test_a_slide_condition_reads_the_screen_and_quotes_the_line():
    units = [said("Photosynthesis is coming up later.", 5),
             shown("Photosynthesis", 40), shown("Light makes sugar", 40),
             shown("Lecture 3 | slide 2", 40)]
    w = Watcher(WatchCondition.parse("the slide about photosynthesis comes up"))
    [alert] = watch_memory(Source(units), [w])
    assert alert.kind == "shown" and alert.start == 40
    assert alert.text == "Photosynthesis"


def test_partial_terms_fire_only_at_the_threshold():
    c = WatchCondition.parse("the Calvin cycle")
    assert coverage(c, "The cycle repeats.") == 0.5
    low = Watcher(c, options=WatchOptions(min_score=0.5))
    high = Watcher(c, options=WatchOptions(min_score=1.0))
    units = [said("The cycle repeats.", 0)]
    assert low.feed(units, 5) and not high.feed(units, 5)


def test_boilerplate_is_never_quoted():
    w = Watcher(WatchCondition.parse("the slide number"))
    units = [Evidence("shown", "Slide number 4", 0, 1, boilerplate=True)]
    assert w.feed(units, 2) == []


def test_a_long_sentence_is_quoted_around_what_matched():
    c = WatchCondition.parse("the iron core")
    w = Watcher(c)
    [m] = w.feed([said("The Earth behaves like a giant magnet because of its molten iron "
                      "core deep down below.", 0, 6)], 7)
    assert m.text == "\u2026like a giant magnet because of its molten iron core\u2026"


def test_a_store_is_read_without_committing_its_buffer():
    class Buffered(Source):
        def evidence(self, start, end, *, flush=True):
            self.flushed = flush
            return super().evidence(start, end)

    source = Buffered([said("The exam.", 0, 2)])
    Watcher(WatchCondition.parse("the exam")).step(source, 3.0)
    assert source.flushed is False


def test_a_long_name_matches_a_word_that_extends_it_but_short_words_never():
    assert coverage(WatchCondition.parse("the Himalayas"), "mountains such as the Himalayan") == 1
    assert coverage(WatchCondition.parse("the heart"), "sat by the hearth") == 0
    assert coverage(WatchCondition.parse("chess"), "a hand to his chest") == 0
    assert coverage(WatchCondition.parse("photosynthesis"), "photograph") == 0
