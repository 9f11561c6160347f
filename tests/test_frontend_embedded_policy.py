"""The embedded frontend's policy modules: the overlap table, turn addressing, intents."""

from __future__ import annotations

from dataclasses import replace

import pytest

from venus.events import OverlapKind
from venus.frontend.floor import OverlapFacts, classify_overlap, is_for_assistant
from venus.frontend.intents import arithmetic_expression, detect_intent, parse_duration
from venus.perception import PerceptionConfig, lexical_cues
from venus.runtime import GatePolicy, OverlapGate

CONFIG = PerceptionConfig(assistant_name="Venus")


def facts(text: str, *, quiet=False, ended=True, duration=1.0, on_topic=None, face=None):
    cues = lexical_cues(text, duration, CONFIG)
    if on_topic is not None:
        from dataclasses import replace
        cues = replace(cues, on_topic=on_topic, topic_similarity=0.5 if on_topic else 0.0)
    return OverlapFacts(cues, quiet, ended, duration, len(text.split()), face)


@pytest.mark.parametrize("text, kw, kind", [
    ("Venus, stop for a second.", {}, OverlapKind.INTERRUPTION),
    ("And now the weather for the weekend.", {"quiet": True}, OverlapKind.BACKGROUND),
    ("Venus, what was that?", {"quiet": True}, OverlapKind.INTERRUPTION),  # name wins
    ("John, can you pass me the salt?", {}, OverlapKind.OTHER_DIRECTED),
    ("Mm-hmm.", {"duration": 0.6}, OverlapKind.BACKCHANNEL),
    ("mm -mm.", {"duration": 0.6}, OverlapKind.BACKCHANNEL),
    ("Yeah.", {"duration": 0.4}, OverlapKind.BACKCHANNEL),
    ("Wait, what about the roots?", {}, OverlapKind.INTERRUPTION),
    ("Tell me about chlorophyll instead.", {}, OverlapKind.INTERRUPTION),
    ("No, that's not right at all.", {"on_topic": True}, OverlapKind.INTERRUPTION),
    ("The dog needs a walk soon.", {"on_topic": False}, OverlapKind.OTHER_DIRECTED),
    ("The dog needs a walk soon.", {"face": False}, OverlapKind.OTHER_DIRECTED),
    ("", {"ended": True, "duration": 0.5}, OverlapKind.BACKGROUND),
])
def test_overlap_table(text, kw, kind):
    assert classify_overlap(facts(text, **kw)) is kind


def test_leading_name_catches_a_vocative_written_as_a_sentence():
    from venus.frontend.floor import leading_name

    assert leading_name("Sarah. Close the door, please.") == "Sarah"
    assert leading_name("Mike, the pizza is here.") == "Mike"
    assert leading_name("Wait. What about roots?") is None
    assert leading_name("Okay, go on.") is None
    assert leading_name("Sarah") is None


@pytest.mark.parametrize("text", ["Wait.", "Hold on.", "Sorry.", "Stop."])
def test_a_bare_opener_takes_the_floor(text):
    """"Wait." alone is the first region of "Wait. What do the roots do?" (the user took a
    breath): an interruption, never a command for someone else."""
    assert classify_overlap(facts(text, duration=0.4, on_topic=False)) is OverlapKind.INTERRUPTION


def test_a_question_on_partial_words_waits_unless_on_topic():
    """Rule 7: partial words of speech still going on that the gate let play."""
    ongoing = {"ended": False, "duration": 1.2}
    assert classify_overlap(facts("Hey, nay, did you drop?", on_topic=False, **ongoing)) is None
    assert classify_overlap(facts("Can you explain the roots?", on_topic=True, **ongoing)) \
        is OverlapKind.INTERRUPTION
    # the gate paused the output on an opener: it stays paused until the words are in
    stopped = replace(facts("Hey, nay, did you drop?", on_topic=False, **ongoing), stopped=True)
    assert classify_overlap(stopped) is None
    assert classify_overlap(replace(stopped, ended=True)) is OverlapKind.INTERRUPTION
    # once ended, the final words decide as before
    assert classify_overlap(facts("Did you drop it?", on_topic=False)) is OverlapKind.INTERRUPTION


def test_undecided_while_still_talking_then_interruption_when_long():
    assert classify_overlap(facts("", ended=False, duration=0.4)) is None
    assert classify_overlap(facts("Yeah", ended=False, duration=0.5)) is None  # "yeah, but..."?
    assert classify_overlap(facts("", ended=False, duration=3.0)) is OverlapKind.INTERRUPTION


def test_turns_heard_while_silent_are_answered_only_when_for_the_assistant():
    assert is_for_assistant(facts("What do leaves make from sunlight?"))
    assert is_for_assistant(facts("Venus, summarize the lecture."))
    assert not is_for_assistant(facts("John, can you pass me the salt?"))
    assert not is_for_assistant(facts("Mm-hmm.", duration=0.5))
    assert not is_for_assistant(facts("And now the weather.", quiet=True))
    assert not is_for_assistant(facts(""))


def test_a_request_to_the_silent_assistant_is_for_it_even_on_a_new_topic():
    """Rule 6 (an off-topic command over our answer is for someone in the room) is about
    speech over a reply: with the assistant silent, "Tell me about acids and bases" after
    a talk about DNA is a new topic for it (seen live: the request was never answered)."""
    assert is_for_assistant(facts("Tell me about acids and bases.", on_topic=False))
    assert is_for_assistant(facts("Explain natural selection to me.", on_topic=False))
    # a name still says whom it is for, and quiet speech is still the room's
    assert not is_for_assistant(facts("Sam, close the window, please.", on_topic=False))
    assert not is_for_assistant(facts("Tell me about acids and bases.", on_topic=False,
                                      quiet=True))
    # over a reply, rule 6 stands
    assert classify_overlap(facts("Please turn the oven off.", on_topic=False)) \
        is OverlapKind.OTHER_DIRECTED


class _Recorder:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *a: self.calls.append((name, *a))


def test_gate_ducks_at_an_onset_and_keeps_playing_while_undecided():
    out = _Recorder()
    gate = OverlapGate(out, GatePolicy(duck_after_s=0.12))
    gate.onset(5.0, quiet=False)
    assert out.calls == [("duck", pytest.approx(5.12))]  # ducked, never paused
    gate.heard("Everyone", 5.55, stop=False)  # the probe read something harmless
    gate.offset(6.2)
    assert [c[0] for c in out.calls] == ["duck"] and gate.episode.ended_at == 6.2
    gate.release(6.5)
    assert ("resume", 6.5) in out.calls and ("unduck", 6.5) in out.calls and gate.episode is None


def test_gate_pauses_where_the_early_words_take_the_floor():
    out = _Recorder()
    gate = OverlapGate(out)
    gate.onset(2.0, quiet=False)
    gate.heard("Wait.", 2.55, stop=True)
    gate.heard("Wait, what?", 2.85, stop=True)  # already paused: once
    assert [c for c in out.calls if c[0] == "pause"] == [("pause", 2.55)]
    assert gate.episode.stopped and gate.episode.words == "Wait, what?"


@pytest.mark.parametrize("words, stop", [
    ("wait", True), ("Hold on. Hold", True), ("Sorry, sorry,", True), ("Stop! Stop.", True),
    ("actually", True), ("Venus", True), ("and what about the", True),
    ("Everyone", False), ("Hey, John.", False), ("Okay", False), ("MMM", False), ("", False),
    # the probe reads from the overlap's onset: an opener after a murmur or a first short
    # region ("Oh. Wait, ...") takes the floor too; one inside a remark does not
    ("Oh wait... wait", True), ("Mm. Hold on, what", True), ("Okay, sorry,", True),
    ("Oh, okay.", False), ("I waited for the bus", False), ("Sarah, stop that", False),
    # the clip ends mid-word ("actually" cut to "actual"), or Whisper drops a soft h
    ("actual", True), ("actual actual", True), ("old on old old", True), ("Old on.", True),
    ("Old", False), ("the old one", False), ("actual size", False),
])
def test_early_words_that_stop_the_output(words, stop):
    from venus.frontend.floor import early_stop

    assert early_stop(words, CONFIG) is stop


@pytest.mark.parametrize("text, capability, args", [
    ("What is 12 times 7?", "calculate", {"expression": "12 * 7"}),
    ("Remind me in 5 minutes to check the oven.", "set_timer",
     {"seconds": 300.0, "message": "check the oven"}),
    ("Set a timer for thirty seconds.", "set_timer", {"seconds": 30.0}),
    ("Can you summarize the last two minutes?", "summarize_range", {"start": 480.0, "end": 600.0}),
    ("Give me a quiz on the lecture.", "make_quiz", {"start": 0.0}),
    ("Find every time they mentioned chlorophyll.", "search_memory", {"k": 5}),
])
def test_delegation_intents(text, capability, args):
    intent = detect_intent(text, now=600.0)
    assert intent.kind == "delegate" and intent.capability == capability and intent.ack
    for key, value in args.items():
        assert intent.arguments[key] == value


@pytest.mark.parametrize("text, kind", [
    ("What did the slide say about leaves?", "answer"),
    ("How do roots take up water?", "answer"),
    ("Never mind.", "cancel"),
    ("Sorry, can you say that again?", "repeat"),
    ("I like this part.", "none"),
])
def test_other_intents(text, kind):
    assert detect_intent(text).kind == kind


def test_arithmetic_and_durations():
    assert arithmetic_expression("what is 3 plus 4 divided by 2") == "3 + 4 / 2"
    assert arithmetic_expression("what is the capital of france") is None
    assert parse_duration("in half an hour") == 1800.0
    assert parse_duration("in 90 seconds") == 90.0
    assert parse_duration("soon") is None


def test_a_revised_answer_continues_from_the_sentence_that_was_cut():
    from venus.frontend.embedded import resume_text

    text = "Leaves make sugar. Chlorophyll absorbs red light, and reflects green. Roots drink."
    assert resume_text(text, "Leaves make") == text
    assert resume_text(text, "Leaves make sugar. Chlorophyll absorbs") == (
        "Chlorophyll absorbs red light, and reflects green. Roots drink.")
    assert resume_text(text, "Leaves make sugar.") == (
        "Chlorophyll absorbs red light, and reflects green. Roots drink.")


def test_the_frontend_is_a_frontend_in_either_mode():
    from venus.errors import ConfigError
    from venus.frontend import Frontend
    from venus.frontend.embedded import EmbeddedFrontend, EmbeddedOptions

    audio = EmbeddedFrontend(mode="audio")
    assert isinstance(audio, Frontend) and audio.name == "embedded-audio"
    assert EmbeddedFrontend().name == "embedded"
    with pytest.raises(ConfigError, match="unknown frontend mode"):
        EmbeddedOptions(mode="video")



def test_a_loud_overlap_is_not_made_background_by_one_soft_chunk():
    """The gate measured the onset at the user's level ("Hang on, what about the bees?");
    a later chunk holds only the soft tail of "bees?" and reads quieter. That one chunk
    does not make the overlap background: the frontend waits for the final words as for
    any loud overlap, and those take the floor."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.events import FloorAction, OverlapClassified
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import EmbeddedFrontend
    from venus.perception import PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary

    frontend = EmbeddedFrontend(None, mode="audio", config=CONFIG)
    view = SessionView("s", 0.0, 0, True, (), (), (), (), ())
    ep = Overlap(5.7, quiet=False)
    loud, soft = Prosody(-20.0, 0.5, False), Prosody(-32.0, -11.0, True)

    def step(i, overlap, **frame):
        chunk = VideoChunk(i, float(i), float(i + 1), (), np.zeros(16000, np.float32))
        p = PerceptionFrame(i, float(i), float(i + 1), 0.9, **frame)
        return frontend.decide(DuplexFrame(chunk, p, overlap, True), view)

    first = step(5, ep, speaking=True, boundaries=(SpeechBoundary("onset", 5.7),), prosody=loud)
    second = step(6, ep, speaking=True, prosody=loud)
    ended = replace(ep, ended_at=7.23)
    tail = step(7, ended, speaking=False, transcribing=True, prosody=soft,
                boundaries=(SpeechBoundary("offset", 7.23),),
                final_words=(Word("And", 5.75, 5.9), Word("on.", 5.9, 6.1)))
    for d in (first, second, tail):
        assert not [e for e in d.perceived if isinstance(e, OverlapClassified)], d
        assert d.floor is None, d
    finals = (Word("What", 6.25, 6.5), Word("about", 6.5, 6.7), Word("the", 6.7, 6.8),
              Word("bees?", 6.8, 7.23))
    decided = step(8, ended, speaking=False, final_words=finals, prosody=Prosody())
    kinds = [e.kind for e in decided.perceived if isinstance(e, OverlapClassified)]
    assert kinds == [OverlapKind.INTERRUPTION] and decided.floor is FloorAction.YIELD_FLOOR


@pytest.mark.parametrize("words, replied", [
    ("with the end of the road instead", True),  # Whisper's "Wait wait, ... the roots instead?"
    ("Mike, the pizza is here.", False),          # named someone else: theirs
    ("Mm-hmm.", False),                            # a backchannel
    ("And then then.", False),  # Whisper's "Mm-hmm." (tuning 0032): 3 words in 0.8 s, too short
])
def test_words_said_over_the_answer_and_judged_after_it_ended_get_a_reply(words, replied):
    """The user began over the answer and the answer ended before the overlap was decided;
    its final words, judged whole, read as nothing for us (misheard: no question, no bid,
    off topic). The user spoke over the assistant with several words: the assistant says
    it did not catch them, which a listener hears as a reply, rather than stay silent. A
    remark that names someone else, or a backchannel, still gets nothing; nor do three
    words said in under a second (a backchannel Whisper wrote as words)."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import CLARIFY, EmbeddedFrontend
    from venus.perception import AddresseeCues, PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary

    frontend = EmbeddedFrontend(None, mode="audio", config=CONFIG)
    view = SessionView("s", 0.0, 0, True, (), (), (), (), ())
    loud = Prosody(-20.0, 0.5, False)

    def step(i, overlap, busy, **frame):
        chunk = VideoChunk(i, float(i), float(i + 1), (), np.zeros(16000, np.float32))
        p = PerceptionFrame(i, float(i), float(i + 1), 0.9, **frame)
        return frontend.decide(DuplexFrame(chunk, p, overlap, busy), view)

    step(6, Overlap(6.4), True, speaking=True, boundaries=(SpeechBoundary("onset", 6.4),), prosody=loud)
    step(7, None, False, speaking=True, prosody=loud)  # the answer ended: the episode closed
    step(8, None, False, speaking=False, transcribing=True, prosody=loud,
         boundaries=(SpeechBoundary("offset", 8.2),))
    said = words.split()
    finals = tuple(Word(w, 6.4 + 0.3 * k, 6.6 + 0.3 * k) for k, w in enumerate(said))
    off_topic = AddresseeCues(text=words, topic_similarity=0.05, on_topic=False)  # MiniLM's
    decided = step(9, None, False, speaking=False, final_words=finals, prosody=Prosody(),
                   cues=off_topic)
    assert (decided.speech == CLARIFY) is replied, decided
    if not replied:
        assert decided.speech is None


def test_words_begun_in_the_chunk_the_answer_ended_in_are_judged_as_an_overlap():
    """The user began over the answer's last words, and the answer ended in that same
    chunk: the runtime closed the episode before the frontend saw it open (`DuplexFrame.
    closed`). It is still an overlap the answer ended under, judged whole with its words:
    a misheard question gets a reply, not silence (tuning 0044, "Oh, and what do roots
    take from the soil?" heard "Oh, and let's do route steak from the soil.")."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import CLARIFY, EmbeddedFrontend
    from venus.perception import AddresseeCues, PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary

    frontend = EmbeddedFrontend(None, mode="audio", config=CONFIG)
    view = SessionView("s", 0.0, 0, True, (), (), (), (), ())
    loud = Prosody(-20.0, 0.5, False)

    def step(i, closed=None, **frame):
        chunk = VideoChunk(i, float(i), float(i + 1), (), np.zeros(16000, np.float32))
        p = PerceptionFrame(i, float(i), float(i + 1), 0.9, **frame)
        return frontend.decide(DuplexFrame(chunk, p, None, False, closed=closed), view)

    step(5, Overlap(5.38), speaking=True, boundaries=(SpeechBoundary("onset", 5.38),), prosody=loud)
    step(6, speaking=True, prosody=loud)
    step(7, speaking=False, transcribing=True, prosody=loud, boundaries=(SpeechBoundary("offset", 7.87),))
    said = "Oh, and let's do route steak from the soil.".split()
    finals = tuple(Word(w, 5.4 + 0.28 * k, 5.6 + 0.28 * k) for k, w in enumerate(said))
    off_topic = AddresseeCues(text=" ".join(said), topic_similarity=0.05, on_topic=False)
    decided = step(8, speaking=False, final_words=finals, prosody=Prosody(), cues=off_topic)
    assert decided.speech == CLARIFY, decided


@pytest.mark.parametrize("question, cut_first", [
    ("And let's do the root 2.", True),   # Whisper's "And what do the roots do?" (tuning 0013)
    ("How do we stay cup vlogger?", False),  # its "How do roots take up water?" (0037)
])
def test_a_reply_to_an_interruption_that_is_the_answer_it_cut_says_it_did_not_catch_it(
        question, cut_first):
    """The user cut in on an answer; what they said, as heard, finds the very answer
    they interrupted (a misheard question: "root 2" finds the note about leaves, or
    nothing again after "I have not seen anything about that yet."). Saying it again
    from the start is no reply: a listener hears their question ignored. The assistant
    says it did not catch them instead. Any other reply is given as found."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.events import FloorAction
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import CLARIFY, EmbeddedFrontend
    from venus.perception import PerceptionFrame, Prosody
    from venus.speech import Heard, PlaybackStatus
    from venus.testing import FakeMemory, FakeMoment

    memory = FakeMemory([FakeMoment(0.0, 5.0, "Leaves make sugar from sunlight; the root hairs take up water.")])
    cut = memory.answer(question if cut_first else "nothing matches this", at=9.0).text
    assert cut.startswith("At 0:00") is cut_first
    frontend = EmbeddedFrontend(memory, mode="audio", config=CONFIG)
    view = SessionView("s", 40.0, 0, True, (), (), (), (), ())
    heard = Heard("u1", cut, " ".join(cut.split()[:4]), 0.3, PlaybackStatus.STARTED)
    words = tuple(Word(w, 6.2 + 0.3 * k, 6.45 + 0.3 * k) for k, w in enumerate(question.split()))

    def decide(reply_cut: Heard):
        frontend.reset()
        chunk = VideoChunk(8, 8.0, 9.0, (), np.zeros(16000, np.float32))
        p = PerceptionFrame(8, 8.0, 9.0, 0.9, speaking=False, final_words=words,
                            prosody=Prosody(-20.0, 0.5, False))
        ep = Overlap(6.2, ended_at=words[-1].end, stopped=True, words="Wait")
        return frontend.decide(DuplexFrame(chunk, p, ep, True, reply_cut), view)

    decided = decide(heard)
    assert decided.floor is FloorAction.YIELD_FLOOR
    assert decided.speech == CLARIFY, decided.speech
    other = decide(Heard("u1", "Something else entirely was being said.", "Something", 0.2,
                         PlaybackStatus.STARTED))
    assert other.speech == cut  # not the answer it cut: given as found


def test_words_that_are_the_assistants_own_recent_reply_are_its_echo():
    """Seen live with a loudspeaker near the microphone: the reply leaked past the
    canceller, Whisper heard it ("0 6 it was said the pH scale runs from 0") and the
    assistant answered itself. Words that are nearly all the assistant's own just-said
    words are its echo, not the user's."""
    from venus.frontend.floor import own_echo

    said = ['At 0:06 it was said: "The pH scale runs from zero to fourteen with seven a '
            'neutral lemon juice and vinegar acids with a pH below seven".']
    assert own_echo("0 6 it was said the pH scale runs from 0", said)
    assert own_echo("The pH scale runs from zero.", said)
    # the user's own words, even on the same topic, are not
    assert not own_echo("What is the pH of vinegar?", said)
    assert not own_echo("Wait, why is seven neutral?", said)
    assert not own_echo("Zero to fourteen?", said)  # too short to say
    assert not own_echo("The pH scale runs from zero.", [])


def test_openers_alone_take_the_floor_without_asking_anything():
    from venus.frontend.floor import opener_only

    assert opener_only("Wait, wait.") and opener_only("wait wait") and opener_only("Hold on.")
    assert opener_only("Um, sorry, hang on")
    assert not opener_only("Wait, how do leaves make sugar?")
    assert not opener_only("Stop talking about leaves.")
    assert not opener_only("")


@pytest.mark.parametrize("text", ["Sorry to cut in.", "Sorry to interrupt,", "Oh, sorry to butt in"])
def test_an_apology_for_cutting_in_is_an_opener_alone(text):
    """"Sorry to cut in, | but why are leaves green?": the user paused after the apology
    (tuning seed 1, 0006); answering "Sorry to cut in." gave "I have not seen anything
    about that yet." over the question that followed."""
    from venus.frontend.floor import opener_only, takes_floor

    assert opener_only(text) and takes_floor(text)
    assert not opener_only("Sorry to cut in, but why are leaves green?")


def test_the_user_going_on_over_the_reply_just_begun_is_their_turn_not_a_remark():
    """"Wait, is that right? | I thought plants eat soil." (tuning seed 1, 0042): the
    turn was taken at the pause after "right?" and the reply had just begun when the user
    went on, 0.2 s after their last word. Whisper heard the rest as "I got planned." (off
    the topic): as an overlap alone, a remark for someone else, and the reply played over
    the user to its end. A user who goes on within a pause inside a turn is still
    talking to us: the reply stops, and the whole turn is answered as one."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.events import FloorAction, OverlapClassified
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import EmbeddedFrontend
    from venus.perception import AddresseeCues, PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary
    from venus.speech import Heard, PlaybackStatus
    from venus.testing import FakeMemory, FakeMoment

    class Asked(FakeMemory):
        def answer(self, question, at=None, k=3):
            self.asked.append(question)
            return super().answer(question, at=at, k=k)

    memory = Asked([FakeMoment(0.0, 5.0, "Roots take up water and minerals from the soil.")])
    memory.asked = []
    frontend = EmbeddedFrontend(memory, mode="audio", config=CONFIG)
    view = SessionView("s", 40.0, 0, True, (), (), (), (), ())
    loud = Prosody(-20.0, 0.5, False)
    off_topic = AddresseeCues(text="I got planned.", topic_similarity=0.05, on_topic=False)

    def step(t, overlap=None, busy=False, heard=None, **frame):
        chunk = VideoChunk(int(t * 10), t, round(t + 0.1, 1), (), np.zeros(1600, np.float32))
        p = PerceptionFrame(int(t * 10), t, round(t + 0.1, 1), 0.9, **frame)
        return frontend.decide(DuplexFrame(chunk, p, overlap, busy, heard), view)

    def said(text, at, step):
        return tuple(Word(w, at + step * k, at + step * k + 0.18) for k, w in enumerate(text.split()))

    first = said("What is that right?", 3.1, 0.2)
    step(3.0, speaking=True, boundaries=(SpeechBoundary("onset", 3.1),), prosody=loud)
    step(3.9, speaking=False, transcribing=True, boundaries=(SpeechBoundary("offset", 3.75),))
    answered = step(4.0, speaking=False, final_words=first)
    assert answered.speech and memory.asked == ["What is that right?"]
    reply = Heard("u2", answered.speech, "", 0.0, PlaybackStatus.STARTED)

    ep = Overlap(3.88)  # 0.2 s after "right?" ended
    step(4.1, ep, True, reply, speaking=True, boundaries=(SpeechBoundary("onset", 3.88),), prosody=loud)
    partial = said("I got planned.", 3.9, 0.25)
    cut = step(4.7, ep, True, reply, speaking=True, partial_words=partial, prosody=loud, cues=off_topic)
    kinds = [e.kind for e in cut.perceived if isinstance(e, OverlapClassified)]
    assert kinds == [OverlapKind.INTERRUPTION] and cut.floor is FloorAction.YIELD_FLOOR, cut

    rest = said("I got plant seed soil.", 3.9, 0.25)
    step(5.2, speaking=False, transcribing=True, boundaries=(SpeechBoundary("offset", 5.1),))
    again = step(5.3, speaking=False, final_words=rest)
    assert memory.asked[-1] == "What is that right? I got plant seed soil.", memory.asked
    assert again.speech and "next question" not in again.speech


def test_a_remark_begun_after_a_longer_pause_is_still_judged_as_a_remark():
    """The same words 1.2 s after the user's last word (a new utterance, not a pause
    inside the turn) are judged as before: off the topic, for someone else."""
    facts_ = facts("I got planned today.", ended=False, duration=1.0, on_topic=False)
    assert classify_overlap(facts_) is OverlapKind.OTHER_DIRECTED
    assert classify_overlap(replace(facts_, resumed=True)) is OverlapKind.INTERRUPTION
    # a backchannel, a name of someone else, quiet speech: still theirs
    assert classify_overlap(replace(facts("Okay.", duration=0.4), resumed=True)) is OverlapKind.BACKCHANNEL
    assert classify_overlap(replace(facts("John, the pizza is here."), resumed=True)) \
        is OverlapKind.OTHER_DIRECTED
    assert classify_overlap(replace(facts("I got planned.", quiet=True), resumed=True)) \
        is OverlapKind.BACKGROUND


def test_a_new_question_over_a_reply_just_begun_is_answered_first_then_the_owed_one():
    """"How do plants make seeds?" was answered, and 0.4 s into the reply (one word heard)
    the user asked "How do roots take up water?" (tuning seed 3, 0004): the reply they
    cut is still owed, but they cut in for the new question, so it is answered first
    ("At 1:00, Bees carry pollen ..." first was the old answer again to a listener)."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.events import FloorAction
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import EmbeddedFrontend
    from venus.perception import PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary
    from venus.speech import Heard, PlaybackStatus
    from venus.testing import FakeMemory, FakeMoment

    memory = FakeMemory([FakeMoment(0.0, 0.5, "Roots take up water through root hairs."),
                         FakeMoment(0.5, 1.0, "Bees carry pollen, which lets plants make seeds.")])
    frontend = EmbeddedFrontend(memory, mode="audio", config=CONFIG)
    view = SessionView("s", 120.0, 0, True, (), (), (), (), ())
    loud = Prosody(-20.0, 0.5, False)

    def step(t, overlap=None, busy=False, heard=None, **frame):
        chunk = VideoChunk(int(t * 10), t, round(t + 0.1, 1), (), np.zeros(1600, np.float32))
        p = PerceptionFrame(int(t * 10), t, round(t + 0.1, 1), 0.9, **frame)
        return frontend.decide(DuplexFrame(chunk, p, overlap, busy, heard), view)

    def said(text, at):
        return tuple(Word(w, at + 0.25 * k, at + 0.2 + 0.25 * k) for k, w in enumerate(text.split()))

    step(1.0, speaking=True, boundaries=(SpeechBoundary("onset", 1.0),), prosody=loud)
    step(2.0, speaking=False, transcribing=True, boundaries=(SpeechBoundary("offset", 2.0),))
    first = step(2.1, speaking=False, final_words=said("How do plants make seeds?", 1.0))
    assert "Bees" in first.speech
    reply = Heard("u1", first.speech, first.speech.split()[0], 0.05, PlaybackStatus.STARTED)
    ep = Overlap(3.0)  # 0.8 s after "seeds?": a new utterance
    step(3.0, ep, True, reply, speaking=True, boundaries=(SpeechBoundary("onset", 3.0),), prosody=loud)
    step(4.3, replace(ep, ended_at=4.2), True, reply, speaking=False, transcribing=True,
         boundaries=(SpeechBoundary("offset", 4.2),))
    again = step(4.4, replace(ep, ended_at=4.2), True, reply, speaking=False,
                 final_words=said("How do roots take up water?", 3.0))
    assert again.floor is FloorAction.YIELD_FLOOR
    assert again.speech.startswith(memory.answer("How do roots take up water?").text), again.speech
    assert again.speech.endswith(f"And your first question: {first.speech}")


def test_a_name_read_only_at_the_cut_end_of_a_partial_does_not_make_a_remark():
    """"Wait wait, can you tell me about the roots instead?" (tuning seed 3, 0028): the
    partial 1.2 s in reads "Wait, wait, can you tell me I'm out, Maroon?". Its last word is
    where Whisper's window cut the speech, and a name there ("..., Maroon?") made it a
    remark for Maroon: the answer played over the question for another second. A name in
    a partial's last word after its opening words waits for the words after it; a name
    that opens the words ("Hey Mike, grab ...") is read at once."""
    import numpy as np

    from memory.media import VideoChunk
    from memory.models.base import Word
    from venus.events import OverlapClassified
    from venus.frontend.base import DuplexFrame, Overlap, SessionView
    from venus.frontend.embedded import EmbeddedFrontend
    from venus.perception import PerceptionFrame, Prosody
    from venus.perception.types import SpeechBoundary

    loud = Prosody(-20.0, 0.5, False)

    def kinds_after(partial_text: str) -> list:
        frontend = EmbeddedFrontend(None, mode="audio", config=CONFIG)
        view = SessionView("s", 10.0, 0, True, (), (), (), (), ())
        ep = Overlap(5.0)

        def step(t, **frame):
            chunk = VideoChunk(int(t * 10), t, round(t + 0.1, 1), (), np.zeros(1600, np.float32))
            p = PerceptionFrame(int(t * 10), t, round(t + 0.1, 1), 0.9, **frame)
            return frontend.decide(DuplexFrame(chunk, p, ep, True), view)

        step(5.0, speaking=True, boundaries=(SpeechBoundary("onset", 5.0),), prosody=loud)
        words = tuple(Word(w, 5.0 + 0.15 * k, 5.13 + 0.15 * k) for k, w in enumerate(partial_text.split()))
        d = step(6.2, speaking=True, partial_words=words, prosody=loud)
        return [e.kind for e in d.perceived if isinstance(e, OverlapClassified)]

    assert kinds_after("Wait, wait, can you tell me I'm out, Maroon?") != [OverlapKind.OTHER_DIRECTED]
    assert kinds_after("Hey Mike, grab my keys") == [OverlapKind.OTHER_DIRECTED]
    assert kinds_after("Sarah, can you pass") == [OverlapKind.OTHER_DIRECTED]
