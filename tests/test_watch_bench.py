"""The proactive benchmark's requests, events and scoring (`memory.benchmarks.proactive`)
and its threshold rule (`venus.bench.proactive.choose`)."""

from __future__ import annotations

from itertools import pairwise

from memory.benchmarks.proactive import Alert, ProactiveScore, WatchRequest, event_time, score
from venus.bench.proactive import choose, user_turns

TRUTH = {
    "duration": 100.0,
    "slides": [{"start": 0.0, "end": 50.0, "title": "Chess", "bullets": ["Kings and queens"]},
               {"start": 50.0, "end": 100.0, "title": "Anatomy", "bullets": ["The chest"]}],
    "sentences": [{"slide": 0, "text": "Chess openings were studied by Ruy Lopez.",
                   "start": 10.0, "end": 14.0},
                  {"slide": 1, "text": "The heart sits in the chest.", "start": 60.0,
                   "end": 63.0}],
}


def test_the_event_is_the_first_time_the_script_holds_the_subject():
    assert event_time(TRUTH, "chess", 0.0) == 0.0  # the slide title, at the slide's start
    assert event_time(TRUTH, "chess", 20.0) == 20.0  # still on screen when asked
    assert event_time(TRUTH, "Ruy Lopez", 0.0) == 10.0 + 4.0 * 7 / 7
    assert event_time(TRUTH, "heart", 0.0) == 60.0 + 3.0 * 2 / 6  # the 2nd of 6 words
    assert event_time(TRUTH, "chess", 0.0, shown_only=True) == 0.0
    assert event_time(TRUTH, "bishops", 0.0) is None


def test_an_alert_is_right_only_on_a_unit_that_holds_the_subject():
    reqs = [WatchRequest("Tell me when chess comes up.", "chess", "said", 0.0, 0.0),
            WatchRequest("Tell me if the slide about bishops comes up.", "bishops", "never",
                         0.0, None)]
    alerts = [Alert(0, 60.0, 63.0, 64.0, "The heart sits in the chest."),  # chest: wrong
              Alert(0, 10.0, 14.0, 15.0, "Chess openings"), Alert(1, 50.0, 51.0, 52.0, "x")]
    s = score(TRUTH, reqs, alerts)
    assert s.recall == 1.0 and s.precision == 1 / 3 and s.delays == (15.0,)


def test_the_threshold_rule_takes_the_middle_of_the_best_plateau():
    def row(t, recall, precision):
        return (t, ProactiveScore(recall, precision, (), 0, 0, (), ()))
    table = [row(0.5, 0.9, 0.8), row(0.6, 0.95, 1.0), row(0.75, 0.95, 1.0), row(1.0, 0.95, 1.0)]
    assert choose(table) == 0.75


def test_the_scripted_user_speaks_now_and_then():
    turns = user_turns(600.0, 1)
    assert turns and all(2 <= b - a <= 4 for a, b in turns)
    assert all(b2[0] - a2[0] >= 40 for a2, b2 in pairwise(turns))
