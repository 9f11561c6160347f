"""The overlap rules added for the duplex evaluation (floor bids, bare vocatives)."""

from __future__ import annotations

from venus.events import OverlapKind
from venus.frontend.floor import OverlapFacts, classify_overlap, leading_name
from venus.perception.types import AddresseeCues


def _facts(text: str, *, quiet: bool = False, on_topic: bool | None = None) -> OverlapFacts:
    return OverlapFacts(AddresseeCues(text=text, on_topic=on_topic), quiet, True, 1.5,
                        len(text.split()))


def test_a_bid_for_the_floor_is_an_interruption_even_off_topic():
    for text in ("Hang on, welcome.", "Wait, wait.", "Hold on, where does it come from",
                 "and what about the bees"):
        assert classify_overlap(_facts(text, on_topic=False)) is OverlapKind.INTERRUPTION, text


def test_quiet_speech_is_background_unless_it_bids_for_the_floor_on_topic():
    assert classify_overlap(_facts("The match ended two all.", quiet=True)) is OverlapKind.BACKGROUND
    assert classify_overlap(_facts("Hang on, what about roots", quiet=True)) is OverlapKind.INTERRUPTION
    # a TV's "wait, ..." about something else stays background
    assert classify_overlap(_facts("Wait, there's more on the news", quiet=True, on_topic=False)) \
        is OverlapKind.BACKGROUND


def test_bare_vocatives_name_someone_else_but_questions_do_not():
    assert leading_name("Lisa did you feed the cat?") == "Lisa"
    assert leading_name("Tom grab my keys") == "Tom"
    assert leading_name("Sarah. Close the door.") == "Sarah"
    for text in ("Did you feed the cat?", "Leaves make sugar", "What do you mean", "Wait did you"):
        assert leading_name(text) is None, text


def test_an_off_topic_command_is_for_someone_else_but_a_question_is_not():
    cmd = OverlapFacts(AddresseeCues(text="Please turn the oven off.", request=True, on_topic=False),
                       False, True, 1.5, 5)
    assert classify_overlap(cmd) is OverlapKind.OTHER_DIRECTED
    ask = OverlapFacts(AddresseeCues(text="Can you turn it off?", request=True, question=True,
                                     on_topic=False), False, True, 1.5, 5)
    assert classify_overlap(ask) is OverlapKind.INTERRUPTION
    on_topic = OverlapFacts(AddresseeCues(text="Explain the roots.", request=True, on_topic=True),
                            False, True, 1.5, 3)
    assert classify_overlap(on_topic) is OverlapKind.INTERRUPTION


def test_words_the_gate_stopped_on_are_a_bid_even_when_the_final_words_lost_the_opener():
    """The probe read "Hold on" and the gate paused the output; Whisper's final words are
    "Fold on, watch out for the roots." (an off-topic command, rule 6, for someone else).
    The opener the gate heard is the user's bid for the floor: an interruption, answered,
    not a pause followed by the old answer. A remark that named someone else (rule 3)
    stays for them."""
    lost = AddresseeCues(text="Fold on, watch out for the roots.", request=True, on_topic=False)
    for stopped, kind in ((False, OverlapKind.OTHER_DIRECTED), (True, OverlapKind.INTERRUPTION)):
        facts = OverlapFacts(lost, False, True, 1.8, 6, stopped=stopped)
        assert classify_overlap(facts) is kind, stopped
    statement = AddresseeCues(text="Fold on the bulldog", on_topic=False)
    assert classify_overlap(OverlapFacts(statement, False, True, 1.5, 4, stopped=True)) \
        is OverlapKind.INTERRUPTION
    named = AddresseeCues(text="Sorry, John, close the door.", request=True, other_name="John")
    assert classify_overlap(OverlapFacts(named, False, True, 1.8, 5, stopped=True)) \
        is OverlapKind.OTHER_DIRECTED
