"""The overlap rules added for the duplex evaluation (floor bids, bare vocatives)."""

from __future__ import annotations

from dataclasses import replace

from venus.events import OverlapKind
from venus.frontend.floor import OverlapFacts, classify_overlap, leading_name
from venus.perception.addressee import lexical_cues
from venus.perception.config import PerceptionConfig
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


def test_one_commanding_word_of_speech_still_going_on_waits_for_the_rest():
    """"Stop. Can you explain the soil part?" over the answer: the first read, 0.66 s in,
    is "Start." (an off-topic command). One or two words of speech that goes on are not
    yet a remark for someone in the room (rule 6 waits, as rule 9 does, for the end or a
    third word): the words after them decide, and here they interrupt."""
    config = PerceptionConfig()
    first = replace(lexical_cues("Start.", 0.66, config), on_topic=False)
    assert classify_overlap(OverlapFacts(first, False, False, 0.66, 1)) is None
    # once it has ended, or said more, an off-topic command is for someone in the room
    assert classify_overlap(OverlapFacts(first, False, True, 0.66, 1)) is not OverlapKind.INTERRUPTION
    more = replace(lexical_cues("Please turn the oven off.", 1.2, config), on_topic=False)
    assert classify_overlap(OverlapFacts(more, False, False, 1.2, 5)) is OverlapKind.OTHER_DIRECTED
    rest = replace(lexical_cues("Stop. Can you explain the soil part?", 1.9, config),
                   on_topic=False)
    assert classify_overlap(OverlapFacts(rest, False, False, 1.9, 7)) is OverlapKind.INTERRUPTION


def test_a_misheard_remark_asking_for_a_thing_done_in_the_room_is_for_someone_else():
    """"Hey Sam, can you close the window, please?" over the answer, in the page: Whisper
    heard "If Sam, ..." (no name). Off the topic and asking for something done with the
    hands, it is rule 6's request for someone in the room, not a question to answer."""
    config = PerceptionConfig()
    remark = replace(lexical_cues("If Sam, can you close the window, please?", 2.4, config),
                     on_topic=False)
    assert classify_overlap(OverlapFacts(remark, False, True, 2.4, 8)) is OverlapKind.OTHER_DIRECTED
    # opened with a bid for the floor ("Wait, Lisa, ..." heard as "Wait, please, ..."), the
    # gate paused on: still for someone who can close a window
    bid = replace(lexical_cues("Wait, please, can you close the window?", 2.0, config),
                  on_topic=False)
    assert classify_overlap(OverlapFacts(bid, False, True, 2.0, 6, stopped=True)) \
        is OverlapKind.OTHER_DIRECTED
    # the same words on the topic, or a bid with a question for the assistant, are the user's
    on = replace(remark, on_topic=True)
    assert classify_overlap(OverlapFacts(on, False, True, 2.4, 8)) is OverlapKind.INTERRUPTION
    ask = replace(lexical_cues("Wait, can you explain the soil part?", 2.0, config), on_topic=False)
    assert classify_overlap(OverlapFacts(ask, False, True, 2.0, 6, stopped=True)) \
        is OverlapKind.INTERRUPTION


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


def test_a_remark_that_opens_like_an_interruption_is_for_the_person_it_names():
    """"Wait, Sarah, can you ...": the opener is the kind that takes the floor, and the
    gate may have paused the output on it, but the remark names someone else (rule 3) and
    gets no reply. An opener followed by a question, or by the assistant's name, is ours."""
    from venus.perception import PerceptionConfig, lexical_cues

    config = PerceptionConfig(assistant_name="Venus")
    for text, name in (("Wait, John, can you close the window?", "John"),
                       ("Hold on, Emma, can you get the door?", "Emma"),
                       ("Sorry, Mike, can you pass the salt?", "Mike"),
                       ("Hang on, Tom. Where are my keys?", "Tom"),
                       ("Oh, Sarah, the pizza is here.", "Sarah"),
                       ("Actually, David, we need more milk.", "David"),
                       ("Stop, Lisa! The dog is on the sofa.", "Lisa"),
                       ("Stop David", "David")):  # the probe's read, cut after the name
        cues = lexical_cues(text, 2.2, config)
        assert cues.other_name == name and cues.other_directed, text
        facts = OverlapFacts(cues, False, True, 2.2, len(text.split()), stopped=True)
        assert classify_overlap(facts) is OverlapKind.OTHER_DIRECTED, text
    for text in ("Wait, what do the roots do?", "Hold on, where does the water come from?",
                 "Wait. What about the roots?", "Hold on. Why are leaves green?",
                 "Sorry, Venus, how do bees help plants?", "Wait, Wait. What do roots do?",
                 "Sorry, I'm", "Actually, I've"):
        cues = lexical_cues(text, 2.2, config)
        assert not cues.other_directed, text
        facts = OverlapFacts(cues, False, True, 2.2, len(text.split()), stopped=True)
        assert classify_overlap(facts) is OverlapKind.INTERRUPTION, text


def test_an_output_the_gate_paused_waits_for_words_that_say_whom_the_overlap_is_for():
    """The probe read "Wait" and the gate paused the output; at the chunk boundary the
    overlap is still going and its words so far are the opener (or nothing): the listener
    already hears the pause, so the verdict waits for the words ("Wait, John, ..." is for
    John) instead of yielding the floor on the opener. Rule 13 still bounds the wait."""
    for text in ("", "Wait,", "Hold on."):
        going = OverlapFacts(AddresseeCues(text=text), False, False, 1.1, len(text.split()),
                             stopped=True)
        assert classify_overlap(going) is None, text
        assert classify_overlap(replace(going, duration=2.6)) is OverlapKind.INTERRUPTION
        assert classify_overlap(replace(going, ended=True, duration=0.5)) is OverlapKind.INTERRUPTION
    named = OverlapFacts(AddresseeCues(text="Wait,"), False, False, 1.1, 1, named_other=True)
    assert classify_overlap(named) is OverlapKind.OTHER_DIRECTED  # the probe read "Wait, John,"


def test_the_probe_stops_early_on_a_question_that_opens_with_no_opener():
    """"So how do bees help plants?", "And what do the roots do?": no "wait" or "hold on",
    but the first second already reads as a question word and the next word (the
    probe's "So how do", "and what do the"), and a loud question over the answer is a
    bid for the floor (rule 8). A lone question word, a backchannel or a name first does
    not stop the output."""
    from venus.frontend.floor import early_stop

    for text in ("So how do", "and what do the", "Um, why are", "But where does",
                 "How do roots", "Okay, and why are", "What's the",
                 # cut right after the question word, once something led to it
                 "and what?", "um, why", "So how?", "but what?"):
        assert early_stop(text), text
    for text in ("What?", "What", "Mm-hmm.", "I see.", "Okay.", "Yeah, yeah.", "Oh, okay.",
                 "Lisa, did you", "Sarah, can you pass", "Hey David, grab", "Right.", "Sure.",
                 "Whatever.", "Who", "Anna, wait, did you"):
        assert not early_stop(text), text


def test_an_opener_alone_in_speech_still_going_on_waits_for_the_words_after_it():
    """"Hang on." [breath] "Tom, where are my keys?" (tuning 0026): the probe misheard
    the opener, so nothing paused the output, and the first region's final words ("Hang
    on.") arrive while the user still speaks. An opener alone does not yet say whom it is
    for: the verdict waits for the words after it (the output plays on, ducked), which
    name Tom. Ended, or with a question after it, it is still an interruption."""
    going = OverlapFacts(AddresseeCues(text="Hang on."), False, False, 1.2, 2)
    assert classify_overlap(going) is None
    assert classify_overlap(replace(going, ended=True)) is OverlapKind.INTERRUPTION
    assert classify_overlap(replace(going, duration=2.6)) is OverlapKind.INTERRUPTION  # rule 13
    asks = OverlapFacts(AddresseeCues(text="Hang on. What about the bees?", question=True),
                        False, False, 1.8, 6)
    assert classify_overlap(asks) is OverlapKind.INTERRUPTION


def test_no_said_twice_claims_the_floor_but_one_no_only_leads():
    """"No, no, tell me about the heart." over an answer about something else corrects
    the speaker: an interruption (it was the off-topic request of rule 6, for someone
    else, and talked through). One "no" may answer someone in the room."""
    from venus.frontend.floor import early_stop, opener_only, takes_floor

    for text in ("No, no, tell me about the heart.", "No no tell me about the heart",
                 "Oh no, no. What about the roots?"):
        assert takes_floor(text) and early_stop(text), text
        assert classify_overlap(_facts(text, on_topic=False)) is OverlapKind.INTERRUPTION, text
    assert opener_only("No, no.")
    for text in ("No, I don't think so.", "No.", "Nono"):
        assert not takes_floor(text) and not early_stop(text), text
    # a name after it still says whom it is for
    named = replace(_facts("No, no, Tom, put it over there.", on_topic=False),
                    cues=AddresseeCues(text="No, no, Tom, put it over there.", other_name="Tom",
                                       on_topic=False))
    assert classify_overlap(named) is OverlapKind.OTHER_DIRECTED


def test_off_topic_words_still_going_on_wait_when_they_open_with_a_filler_or_ask():
    """"Um, why are leaves green?" over the answer: the partial 1.2 s in reads "um, right,
    please." (off topic, three words). Rule 9 would call it a remark for someone else and
    the answer plays over the user's question; words that open with a hesitation ("um",
    "okay, and") or hold a question word are the start of something said to us as often
    as not: while the speech goes on they wait for more words. Ended, they are judged."""
    for text in ("Ok and right", "with what do they"):
        cues = AddresseeCues(text=text, on_topic=False)
        going_on = OverlapFacts(cues, False, False, 1.2, len(text.split()))
        assert classify_overlap(going_on) is None, text
        ended = OverlapFacts(cues, False, True, 1.6, len(text.split()))
        assert classify_overlap(ended) is OverlapKind.OTHER_DIRECTED, text
    # an off-topic remark that opens on neither is still for someone else at its third word
    plain = AddresseeCues(text="I'll be right there", on_topic=False)
    assert classify_overlap(OverlapFacts(plain, False, False, 1.2, 4)) is OverlapKind.OTHER_DIRECTED
    # and a filler-led one waits no longer than the longest undecided overlap
    long = OverlapFacts(AddresseeCues(text="so, the pizza is here", on_topic=False), False, False,
                        2.6, 5)
    assert classify_overlap(long) is OverlapKind.OTHER_DIRECTED


def test_words_that_open_with_a_hesitation_are_said_to_us_whatever_their_topic():
    """"Um, why are leaves green?" is heard "um, right, please." or "Um, wider." on its
    partial (tuning seed 3, four samples): off the topic, rule 9 made each a remark for
    someone else and the answer played over the question. "Um" and "uh" announce that
    the speaker is about to go on speaking (Clark & Fox Tree 2002) to whoever they are
    talking with, here us: words that open with one are not a remark by their topic
    (a name still makes them one, rule 3), at their second word, while going on or once
    they lasted longer than a backchannel (1.5 s)."""
    for text, ended in (("um, right, please.", False), ("Um, wider.", False),
                        ("Uh, the roots part?", True), ("Um, right, leave, leave.", True)):
        cues = AddresseeCues(text=text, on_topic=False)
        facts = OverlapFacts(cues, False, ended, 1.8 if ended else 1.2, len(text.split()))
        assert classify_overlap(facts) is OverlapKind.INTERRUPTION, text
    # ended as short as a backchannel, it is judged by its topic as before ("Hmm." with
    # the assistant's echo under it was heard "uh and m" in the browser)
    short = OverlapFacts(AddresseeCues(text="uh and m", on_topic=False), False, True, 1.0, 3)
    assert classify_overlap(short) is OverlapKind.OTHER_DIRECTED
    # a murmur alone is still a backchannel, and "uh-huh" is one, not a hesitation
    for text in ("Um.", "Uh-huh, okay then"):
        cues = replace(lexical_cues(text, 0.6, PerceptionConfig()), on_topic=False)
        assert classify_overlap(OverlapFacts(cues, False, True, 0.6, len(text.split()))) \
            is not OverlapKind.INTERRUPTION, text
    named = replace(lexical_cues("Um, Tom, can you get the door?", 1.5, PerceptionConfig()),
                    on_topic=False)
    assert classify_overlap(OverlapFacts(named, False, True, 1.5, 7)) is OverlapKind.OTHER_DIRECTED
