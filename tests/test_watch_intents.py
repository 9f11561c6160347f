""""Tell me when ..." as people say it becomes a delegation to ``watch``."""

from __future__ import annotations

import pytest

from venus.frontend.intents import detect_intent, watch_request


@pytest.mark.parametrize("said, condition, every", [
    ("Tell me when he starts on the exam topics.", "he starts on the exam topics", False),
    ("Let me know when the slide about photosynthesis comes up",
     "the slide about photosynthesis comes up", False),
    ("tell me if anyone mentions the deadline", "anyone mentions the deadline", False),
    ("Alert me when Ingenhousz is mentioned.", "Ingenhousz is mentioned", False),
    ("Remind me when the lecture gets to magnetism.", "the lecture gets to magnetism", False),
    ("Venus, can you tell me when we get to the water cycle?", "we get to the water cycle",
     False),
    ("Tell me every time she mentions chess, please.", "she mentions chess", True),
    ("Let me know whenever the deadline comes up", "the deadline comes up", True),
])
def test_standing_requests_become_a_watch(said, condition, every):
    intent = detect_intent(said)
    assert intent.kind == "delegate" and intent.capability == "watch"
    assert intent.arguments == {"condition": condition, "every_time": every}
    assert watch_request(said) == (condition, every)
    assert intent.ack.startswith("Sure, I'll")


@pytest.mark.parametrize("said, kind, capability", [
    ("Tell me when he mentioned the exam.", "answer", None),  # the past: a question
    ("Tell me when the lecture started.", "answer", None),
    ("Tell me if there is a dog in the video.", "answer", None),  # a question about now
    ("Remind me in 5 minutes to stretch", "delegate", "set_timer"),
    ("Tell me about photosynthesis.", "answer", None),
    ("Stop watching.", "cancel", None),
    ("Cancel the watch.", "cancel", None),
])
def test_what_is_not_a_new_watch(said, kind, capability):
    intent = detect_intent(said)
    assert (intent.kind, intent.capability) == (kind, capability)
