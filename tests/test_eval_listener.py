"""The strict listener rules (RESUME / RESPOND) on hand-made speech regions (no models)."""

from __future__ import annotations

import pytest

from venus.eval.listener import answer_end, hear, silences

# The clean answer: 3.0-9.0 s with a 0.3 s breath at 6.0 (one answer), then silence.
CLEAN = [(3.0, 6.0), (6.3, 9.0)]
DURATION = 14.0
ONSET, END = 5.0, 5.6  # a backchannel 2 s into the answer


def test_silences_include_the_leading_and_trailing_ones():
    assert silences(CLEAN, DURATION) == [(0.0, 3.0), (6.0, 6.3), (9.0, 14.0)]
    assert silences([], 2.0) == [(0.0, 2.0)]


def test_the_clean_answer_ends_where_a_gap_over_0_8_s_begins():
    assert answer_end(CLEAN, ONSET) == 9.0
    assert answer_end([(3.0, 6.0), (7.0, 9.0)], ONSET) == 6.0  # a 1 s gap ends the answer
    assert answer_end(CLEAN, 1.0) is None  # the clean output is silent at the onset


def test_a_two_second_gap_fails_resume():
    output = [(3.0, 5.4), (7.4, 11.0)]  # silent 5.4-7.4: the gate held the output
    heard = hear(output, CLEAN, DURATION, ONSET, END)
    assert heard.resume is False and heard.longest_silence_s == pytest.approx(2.0)
    assert heard.window == (ONSET, END + 1.0)


def test_short_pauses_pass_resume_and_0_8_s_is_the_limit():
    assert hear([(3.0, 5.4), (5.9, 9.5)], CLEAN, DURATION, ONSET, END).resume is True
    assert hear([(3.0, 5.4), (6.2, 9.8)], CLEAN, DURATION, ONSET, END).resume is True  # 0.8
    assert hear([(3.0, 5.4), (6.25, 9.8)], CLEAN, DURATION, ONSET, END).resume is False


def test_a_silence_beginning_after_the_window_does_not_count():
    # falls silent 1.2 s after the overlap's end: past the window (end + 1 s)
    heard = hear([(3.0, 6.8), (8.0, 10.0)], CLEAN, DURATION, ONSET, END)
    assert heard.resume is True and heard.longest_silence_s == 0.0


def test_the_window_closes_at_the_clean_answer_end():
    clean = [(3.0, 6.0)]  # the answer ends 0.4 s after the overlap: the window is 5.0-6.0
    assert hear([(3.0, 6.0)], clean, DURATION, ONSET, END).resume is True  # ends as in clean
    assert hear([(3.0, 5.9)], clean, DURATION, ONSET, END).resume is True  # VAD jitter
    assert hear([(3.0, 5.5)], clean, DURATION, ONSET, END).resume is False  # cut short


def test_a_silence_under_way_at_the_onset_counts_whole():
    heard = hear([(3.0, 4.6), (5.6, 9.0)], CLEAN, DURATION, ONSET, END)
    assert heard.resume is False and heard.longest_silence_s == pytest.approx(1.0)


def test_output_that_never_comes_back_fails_with_the_rest_of_the_file():
    heard = hear([(3.0, 5.3)], CLEAN, DURATION, ONSET, END)
    assert heard.resume is False and heard.longest_silence_s == pytest.approx(DURATION - 5.3)


def test_resume_is_not_testable_where_the_clean_output_is_silent():
    heard = hear([(3.0, 9.0)], [(0.5, 2.0)], DURATION, ONSET, END)
    assert heard.resume is None and heard.window is None


INTERRUPTION = (5.0, 6.5)


def test_respond_needs_a_stop_within_1_5_s_and_speech_within_3_s_of_the_end():
    onset, end = INTERRUPTION
    ok = hear([(3.0, 5.4), (7.5, 11.0)], CLEAN, DURATION, onset, end)
    assert ok.respond is True and ok.stop_latency == pytest.approx(0.4)
    assert ok.response_latency == pytest.approx(1.0)
    late_stop = hear([(3.0, 6.6), (7.5, 11.0)], CLEAN, DURATION, onset, end)
    assert late_stop.respond is False and late_stop.stop_latency == pytest.approx(1.6)
    assert hear([(3.0, 6.5), (7.5, 11.0)], CLEAN, DURATION, onset, end).respond is True  # 1.5
    late_reply = hear([(3.0, 5.4), (9.6, 11.0)], CLEAN, DURATION, onset, end)
    assert late_reply.respond is False and late_reply.response_latency == pytest.approx(3.1)
    silent = hear([(3.0, 5.4)], CLEAN, DURATION, onset, end)
    assert silent.respond is False and silent.response_latency is None


def test_a_breath_is_not_a_stop_and_talking_on_is_not_a_response():
    onset, end = INTERRUPTION
    # a 0.3 s breath at 5.4 and then the old answer runs on: never stopped
    heard = hear([(3.0, 5.4), (5.7, 11.0)], CLEAN, DURATION, onset, end)
    assert heard.respond is False and heard.stop_latency == pytest.approx(6.0)


def test_a_pause_that_plays_on_while_the_user_still_speaks_is_not_the_stop():
    """The output falls silent 0.4 s in for 0.6 s, then plays on over the rest of the
    interruption: the listener heard it talk on, so it stopped only where it fell silent
    for good (here never before the overlap's end: no RESPOND, however it replies)."""
    onset, end = INTERRUPTION
    talked_on = hear([(3.0, 5.4), (6.0, 8.0), (8.6, 11.0)], CLEAN, DURATION, onset, end)
    assert talked_on.stop_latency == pytest.approx(3.0) and talked_on.respond is False
    # paused again before the end and silent from there: that second pause is the stop
    again = hear([(3.0, 5.4), (6.0, 6.3), (7.5, 11.0)], CLEAN, DURATION, onset, end)
    assert again.stop_latency == pytest.approx(1.3) and again.respond is True
