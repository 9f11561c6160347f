"""The unit scorer without its dense part (zeroed, so what is measured is the rest):
exact and misspelt terms (one typo), what it must not match, the names a question holds
and the counts it asks for, and the lead sentence Whisper left unpunctuated."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from memory.answering import (
    FEATURES,
    AnswerOptions,
    ExtractiveAnswerer,
    Question,
    RankContext,
    RuleRanker,
    lead_units,
)
from memory.answering.moments import same_screen
from memory.answering.rules import FUZZY_CREDIT
from memory.answering.words import (
    content_terms,
    counted_term,
    counts_of,
    lemma,
    near_terms,
    question_names,
    sounds_alike,
    unit_types,
)
from memory.evidence import SAID, SHOWN, Evidence, Moment
from memory.lexical import tokenize


def upto(last: str) -> RuleRanker:
    """The rule ranker with the rules up to ``last`` (`FEATURES` order, the order they
    were added): each test compares a rule on and off on the examples that asked for it."""
    names = [f.name for f in FEATURES]
    return RuleRanker(features=frozenset(names[:names.index(last) + 1]))


def _rank(ranker, question, vector, units, vectors, priors, idf, groups=None):
    context = RankContext(vector, vectors, priors, idf, groups)
    return ranker.rank(Question.parse(question), units, context).values


# the rankers these tests compare, by the last rule each holds
SCORERS = {"dense+lexical": upto("lexical"), "full": upto("context"),
           "full-screen": upto("screen"), "full-slides": upto("slides"),
           "full-near": upto("near_context"), "full-lemmas": upto("lemmas"),
           "full-misheard": upto("misheard_names"), "full-echo1": RuleRanker()}


def _score(question, texts):
    units = [Evidence(SAID, t, float(i), float(i) + 1.0) for i, t in enumerate(texts)]
    vectors = np.zeros((len(units), 4), np.float32)  # no dense signal: lexical only
    return _rank(SCORERS["dense+lexical"], question, np.zeros(4, np.float32), units, vectors,
                 [1.0] * len(units), {})


def test_a_typo_in_the_question_or_the_transcript_still_counts():
    exact, typo, other = _score("What does chlorophyll absorb?", [
        "Chlorophyll absorbs red and blue light.",
        "Clorophyll absorbed red and blue light.",  # Whisper's spelling
        "Roots take up water from the soil.",
    ])
    assert exact == pytest.approx(0.6)
    # "absorb" matches exactly (stemmed), "chlorophyll" one typo away
    assert typo == pytest.approx(0.6 * (1 + FUZZY_CREDIT) / 2)
    assert other == 0.0
    assert _score("What does clorophyl absorb?", ["Chlorophyll absorbs red light."])[0] > 0.5


def test_near_terms_one_typo_two_for_long_words_none_for_short_ones():
    vocab = set(tokenize("chlorophyll photosynthesis volcanoes cat cart proton protein"))
    near = near_terms(tokenize("clorophyll fotosynthesis volcanos cats proteins"), vocab)
    by_word = dict(zip(["clorophyll", "fotosynthesis", "volcanos", "cats", "proteins"],
                       near.values()))
    assert by_word["clorophyll"] == set(tokenize("chlorophyll"))
    assert by_word["fotosynthesis"] == set(tokenize("photosynthesis"))  # 2 edits, long word
    assert by_word["volcanos"] == set()  # stemmed alike: an exact match, not a near one
    assert by_word["cats"] == set()  # short words are never fuzzy ("cat", "cart")
    assert by_word["proteins"] == set()  # "protein" exact; "proton" is two edits away


def test_transposed_letters_are_one_typo():
    vocab = set(tokenize("Samarkand"))
    assert near_terms(tokenize("Samrakand"), vocab)[tokenize("Samrakand")[0]] == vocab


# -- what the question names and counts -------------------------------------------------
def _full(question, texts, groups=None, scorer="full"):
    """The full scorer with no dense signal, each text a unit (``groups``: the moment of
    each unit; default one moment per unit)."""
    units = [Evidence(SAID, t, float(i), float(i) + 1.0) for i, t in enumerate(texts)]
    vectors = np.zeros((len(units), 4), np.float32)
    scorer = SCORERS[scorer] if isinstance(scorer, str) else scorer
    return _rank(scorer, question, np.zeros(4, np.float32), units, vectors,
                 [1.0] * len(units), {}, groups=groups)


UNNAMED = SCORERS["full"].without("named")


def test_generic_words_are_dropped_as_terms():
    # stemmed like every term: "many" -> "mani", "displayed" -> "display"
    assert content_terms("How many moons were displayed by the lecturer?") == ["moon"]


def test_the_names_a_question_holds():
    # runs of capitalised words (after the first word) and acronyms, as terms
    assert question_names("Who built the Hanging Gardens of Babylon?") == \
        [("hang", "garden"), ("babylon",)]
    assert question_names("What does DNA carry?") == [("dna",)]
    assert question_names("What does the heart pump?") == []  # the first word is no name


def test_a_unit_missing_the_name_the_question_asks_about_is_marked_down():
    question = "Who built the Hanging Gardens of Babylon?"
    other = "The Great Wall was built by the Ming emperors over two centuries."
    answer = "Nebuchadnezzar built the Hanging Gardens of Babylon for his wife."
    named, missing = _full(question, [answer, other])
    without_rule = _full(question, [other], scorer=UNNAMED)[0]
    # a name and a shared verb: once nearly an answer, now below it by the penalty
    assert missing <= without_rule - SCORERS["full"].weight("named")
    assert named > missing + SCORERS["full"].weight("named")
    # named elsewhere in the same moment (a slide title): that moment is about it
    moment = [other, "The Hanging Gardens of Babylon"]
    titled = _full(question, moment, groups=[0, 0])[0]
    assert titled == pytest.approx(_full(question, moment, groups=[0, 0], scorer=UNNAMED)[0])


def test_a_name_is_all_of_its_words():
    # "Hanging Temple" is not named by "Hanging Gardens": one word alike is another name
    question = "Who was the Hanging Temple built for?"
    other = "The Hanging Gardens were built for a homesick queen."
    assert _full(question, [other])[0] <= \
        _full(question, [other], scorer=UNNAMED)[0] - SCORERS["full"].weight("named")


def test_a_misheard_name_still_supports_the_unit():
    # Whisper: "Calvin" -> "Kelvin" (sounds alike), "Antarctica" -> "Antarctic" (a prefix)
    for question, heard in (
            ("What does the Calvin cycle fix into sugar?",
             "The Kelvin cycle then fixes carbon dioxide into sugar."),
            ("What do ice cores from Antarctica record?",
             "Ice cores from Antarctic record the climate of the last 800,000 years.")):
        assert _full(question, [heard])[0] == pytest.approx(
            _full(question, [heard], scorer=UNNAMED)[0])
    assert sounds_alike("calvin", "kelvin") and not sounds_alike("pyramid", "wall")


def test_how_many_wants_a_count_of_what_it_asks_about():
    question = "How many moons does Saturn have?"
    texts = ["Saturn has 146 known moons.",
             "Saturn's rings stretch 280,000 kilometres but are thin.",  # counts kilometres
             "Saturn's moons are mostly ice."]  # no count at all
    assert counted_term(question) == "moon"
    assert "moon" in counts_of(texts[0]) and "moon" not in counts_of(texts[1])
    full = SCORERS["full"]
    with_type = _full(question, texts)
    no_type = _full(question, texts, scorer=full.without("type"))
    bonus = with_type - no_type
    assert bonus[0] > 0.0  # a count of moons answers it
    # a count of something else is about something else: as costly as a missing name
    assert bonus[1] == pytest.approx(-full.weight("named"))
    assert bonus[2] == 0.0


# -- a sentence Whisper left unpunctuated ---------------------------------------------
def _said(text, start, end, score):
    return Evidence(SAID, text, start, end, 1, score)


def test_an_unfinished_lead_sentence_is_quoted_with_its_continuation():
    units = [_said("When the dam opened the valley", 10.0, 12.1, 1.3),  # cut before "Farms"
             Evidence(SHOWN, "The Dam Opens", 8.0, 20.0, 1, 0.9),
             _said("Farms downstream flooded within a week.", 12.4, 14.8, 0.4),
             _said("Engineers had warned about it.", 15.0, 16.9, 0.3)]
    lead = lead_units(units)
    assert lead[0].text == "When the dam opened the valley Farms downstream flooded within a week."
    assert (lead[0].start, lead[0].end, lead[0].score) == (10.0, 14.8, 1.3)
    text = ExtractiveAnswerer().answer("What happened when the dam opened?",
                                       [Moment(8.0, 20.0, 1.0, "", evidence=tuple(units))])
    assert text == ('At 0:10 it was said: "When the dam opened the valley Farms downstream '
                    'flooded within a week".')


def test_a_finished_or_separate_sentence_is_not_extended():
    after = _said("Farms downstream flooded within a week.", 12.4, 14.8, 0.4)
    finished = [_said("The dam opened in spring.", 10.0, 12.1, 1.3), after]
    assert [u.text for u in lead_units(finished)] == ["The dam opened in spring."]
    paused = [_said("When the dam opened the valley", 10.0, 12.1, 1.3),
              dataclasses.replace(after, start=13.5)]  # after a pause: a new sentence
    assert [u.text for u in lead_units(paused)] == ["When the dam opened the valley"]
    elsewhere = [_said("When the dam opened the valley", 10.0, 12.1, 1.3),
                 dataclasses.replace(after, segment_id=2)]  # another moment
    assert [u.text for u in lead_units(elsewhere)] == ["When the dam opened the valley"]


# -- rules found on the dev split (each true of any lecture) ------------------------------
def test_a_name_heard_one_letter_off_still_supports_the_unit():
    # Whisper spells a name its own way ("Garry" as "Gary", "Jon" stays too short to
    # guess): one edit in a name of four letters or more, same first letter
    question = "Which engine did Garry Thomson design?"
    heard = "In 1920 Gary Thomson designed the first diesel engine for ships."
    assert _full(question, [heard])[0] == pytest.approx(
        _full(question, [heard], scorer=UNNAMED)[0])
    other_name = "In 1920 Mary Thomson designed the first diesel engine for ships."
    assert _full(question, [other_name])[0] < _full(question, [heard])[0]
    short = "Tim built the boat."  # three letters: never guessed
    assert _full("What did Tom build?", [short])[0] <= \
        _full("What did Tom build?", [short], scorer=UNNAMED)[0] - SCORERS["full"].weight("named")


def test_a_place_after_a_preposition_is_not_a_person():
    assert "person" not in unit_types("The first map was drawn on a wall in Babylon.")
    assert "person" in unit_types("The thinker Anaximander drew the first map of the world.")
    assert "person" in unit_types("The first map of the world was drawn by Anaximander.")
    question = "Who drew the first map of the world?"
    said, shown = _full(question, ["The first map of the world was drawn on a wall in Babylon.",
                                   "The thinker Anaximander drew the first map of the world"])
    assert shown > said


def test_who_is_answered_by_a_group_of_people_too():
    # "Who could not vote in Athens?": the answer names no one, it names groups
    assert "person" in unit_types("Women, slaves and foreigners could not vote at all.")
    assert "person" not in unit_types("The assembly met on a hill near the city.")
    question = "Who could not vote in Athens?"
    texts = ["Democracy in Athens", "Every citizen could speak and vote in the assembly.",
             "Women, slaves and foreigners could not vote at all."]
    _, citizen, groups = _full(question, texts, groups=[0, 0, 0], scorer="full-echo1")
    assert groups > citizen


def test_a_unit_that_says_nothing_beyond_the_question_does_not_lead():
    # a slide title echoing the question embeds close to it; the sentence that answers
    # refers back to the title ("they") and embeds further away
    question = "What did the Phoenicians trade in?"
    units = [Evidence(SHOWN, "The Phoenicians", 0.0, 10.0),
             Evidence(SAID, "They traded purple dye and cedar wood across the sea.", 2.0, 5.0)]
    vector = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    vectors = np.array([[0.75, 0.66, 0.0, 0.0], [0.45, 0.0, 0.89, 0.0]], np.float32)
    title, answer = _rank(SCORERS["full"], question, vector, units, vectors, [1.0, 1.0], {},
                          groups=[0, 0])
    assert answer > title


def test_a_term_its_moment_holds_counts_in_part():
    # "Their capital stood on an island" under a slide titled "The Aztecs": the sentence
    # refers back to the slide (or the sentence before), so the moment's terms count half
    question = "Where did the Hittites build their capital?"
    texts = ["The Hittites", "Their capital stood on a rocky ridge above the river."]
    alone = _full(question, texts[1:])[0]
    together = _full(question, texts, groups=[0, 0])[1]
    assert together > alone
    assert _full(question, texts, groups=[0, 1])[1] == pytest.approx(alone)


def test_a_comparative_counts_as_its_word():
    # "hard" / "harder", "cold" / "colder": near terms even though the words are short
    near = near_terms(tokenize("hard cold big"), set(tokenize("harder colder bigger card")))
    assert near[tokenize("hard")[0]] == set(tokenize("harder"))
    assert near[tokenize("cold")[0]] == set(tokenize("colder"))
    assert near[tokenize("big")[0]] == set(tokenize("bigger"))
    assert _score("Why is sailing hard in winter?",
                  ["Sailing was harder in winter, because storms came."])[0] > 0.5


@pytest.fixture(scope="module")
def minilm():
    from memory.store import MemoryModels

    return MemoryModels().embedder


def _moment_scores(embedder, scorer, question, units):
    vectors = embedder.embed([u.text for u in units])
    return _rank(SCORERS[scorer], question, embedder.embed([question])[0], units, vectors,
                 [1.0] * len(units), {}, groups=[0] * len(units))


@pytest.mark.parametrize("question, answer", [
    ("What did the Aztecs use as money?", 6),
    ("Where was the Aztec capital built?", 5),
])
def test_a_sentence_is_read_under_the_slide_it_was_said_under(minilm, question, answer):
    """The dev split's Aztec slide, as the memory holds it: the sentences that answer
    refer to the slide's topic without naming it ("Cocoa beans ... were used as money",
    "Their capital ... stood on an island", said under "The Aztecs"), so on their own
    words the topic's opening sentence, which names it, led both questions; read with
    the moment's screen text (the ``screen`` feature) the answering sentence leads."""
    units = [Evidence(SHOWN, t, 36.0, 60.0) for t in (
        "The Aztecs", "An empire in central Mexico", "A capital built on a lake",
        "Conquered by Spain in 1521")] + [
        Evidence(SAID, "The Aztecs built an empire in the valley of Mexico in the 14th and "
                       "15th centuries.", 37.0, 42.0),
        Evidence(SAID, "Their capital, Tenoc Tylen stood on an island in Lake Tex Cocoa.", 42.0, 46.0),
        Evidence(SAID, "Cocoa beans were so valuable that they were used as money.", 48.0, 51.0)]
    assert int(np.argmax(_moment_scores(minilm, "full", question, units))) == 4  # the failure
    assert int(np.argmax(_moment_scores(minilm, "full-screen", question, units))) == answer


def test_a_moment_with_no_screen_text_is_scored_as_before(minilm):
    """Real footage with no text on screen: reading with the screen changes nothing."""
    units = [Evidence(SAID, "The bus stopped at the corner.", 0.0, 2.0),
             Evidence(SAID, "A man in a red coat got off.", 2.0, 4.0)]
    question = "What colour was the coat of the man?"
    assert np.allclose(_moment_scores(minilm, "full", question, units),
                       _moment_scores(minilm, "full-screen", question, units))


# -- the second dev split's misses (Piper's voice, history and technology topics) ---------
def _scores(embedder, scorer, question, units, groups):
    vectors = embedder.embed([u.text for u in units])
    return _rank(SCORERS[scorer], question, embedder.embed([question])[0], units, vectors,
                 [1.0] * len(units), {}, groups=groups)


def _slide(lines, start, end):
    return [Evidence(SHOWN, t, start, end) for t in lines]


_ATHENS = ["Athenian Democracy", "Rule by the citizens", "The assembly met on a hill",
           "Only some could vote"]


def test_segments_showing_one_slide_are_one_moment(minilm):
    """A slide talked over for 30 s spans two segments; the sentence in the second one
    does not name Athens, the first one does. Scored per segment the answer lost the
    name's cost (0.5) and the opening sentence led; read as one slide it leads."""
    units = _slide(_ATHENS, 423.0, 435.0) + [
        Evidence(SAID, "Athens became a democracy around 508 BC, after the reforms of "
                       "Cleisthenes.", 423.9, 429.0),
        Evidence(SAID, "Every citizen could speak and vote in the assembly.", 430.2, 434.5),
    ] + _slide(_ATHENS, 435.0, 450.0) + [
        Evidence(SAID, "Many officials were chosen by lot rather than by election.", 435.2, 438.0)]
    groups = [0] * 6 + [1] * 5
    assert same_screen(units, groups) == [0] * 11
    question = "How were many officials in Athens chosen?"
    assert int(np.argmax(_scores(minilm, "full-screen", question, units, groups))) == 4
    assert int(np.argmax(_scores(minilm, "full-slides", question, units, groups))) == 10
    # moments without screen text, or with another slide, stay apart
    bare = [Evidence(SAID, "One.", 0.0, 1.0), Evidence(SAID, "Two.", 5.0, 6.0)]
    assert same_screen(bare, [0, 1]) == [0, 1]
    other = _slide(["The Beatles", "Beatlemania"], 0.0, 9.0) + _slide(_ATHENS, 9.0, 20.0)
    assert same_screen(other, [0, 0, 1, 1, 1, 1]) == [0, 0, 1, 1, 1, 1]


def test_context_is_the_title_and_the_sentence_before(minilm):
    """A sentence's context is what it refers back to: the slide's title and the sentence
    before. With every term of its moment as context, "formed in Liverpool" got half
    credit for "before", "famous" and "play" from its neighbour and led."""
    units = _slide(["The Beatles", "Four young men from Liverpool", "Beatlemania"],
                   267.0, 296.0) + [
        Evidence(SAID, "The Beatles formed in Liverpool at the start of the 1960s.", 267.8, 271.0),
        Evidence(SAID, "Before they were famous they played long nights in the clubs of "
                       "Hamburg.", 272.5, 276.0),
        Evidence(SAID, "John Lennon and Paul McCartney wrote most of their songs together.",
                 282.7, 286.0)]
    question = "Where did the Beatles play before they were famous?"
    groups = [0] * len(units)
    assert int(np.argmax(_scores(minilm, "full-slides", question, units, groups))) == 3
    assert int(np.argmax(_scores(minilm, "full-near", question, units, groups))) == 4


def test_an_irregular_past_matches_its_verb(minilm):
    assert [lemma(t) for t in tokenize("held chosen built took")] == \
        [tokenize(w)[0] for w in ("hold", "choose", "build", "take")]
    for word in ("walls", "born", "ground"):  # not a past, or more often another word
        assert lemma(tokenize(word)[0]) == tokenize(word)[0]
    units = _slide(["Gothic Cathedrals", "Pointed arches and tall windows",
                    "Flying buttresses hold up the walls"], 301.0, 315.0) + [
        Evidence(SAID, "Gothic building began in France in the 12th century.", 301.8, 305.2)]
    question = "What held up the walls of Gothic cathedrals?"
    groups = [0] * len(units)
    assert int(np.argmax(_scores(minilm, "full-near", question, units, groups))) == 3
    assert int(np.argmax(_scores(minilm, "full-lemmas", question, units, groups))) == 2


def test_a_unit_holding_the_rest_of_the_question_keeps_a_misheard_name(minilm):
    """Whisper heard "ENIAC" as "In the act": the sentence has "vacuum tubes" and the
    count, and once scored 0.85 (abstained) for lacking the name; "How long is the
    Amazon?" on the Nile's length still pays for it (one other term says too little)."""
    units = _slide(["The First Computers", "Vacuum tubes, then transistors"], 460.0, 480.0) + [
        Evidence(SAID, "In the act, finished in 1945, used about 18,000 vacuum tubes.",
                 464.0, 468.0)]
    question = "How many vacuum tubes did ENIAC use?"
    groups = [0] * len(units)
    before = _scores(minilm, "full-lemmas", question, units, groups)[2]
    after = _scores(minilm, "full-misheard", question, units, groups)[2]
    assert before < AnswerOptions().min_score < after
    # a name heard a little off beside the question's other words: also about it
    chichen = [Evidence(SAID, "At Chitchin' it's a, the shadow of the serpent appears on the "
                              "steps at the Equinox.", 0.0, 4.0)]
    question = "What appears on the steps of Chichen Itza at the equinox?"
    assert _scores(minilm, "full-misheard", question, chichen, [0])[0] > \
        _scores(minilm, "full-lemmas", question, chichen, [0])[0] + SCORERS["full"].weight("named") / 2
    # one other term, or another name in the unit: about something else, the cost stays
    for question, text in (("How long is the Amazon?", "The Nile is 6650 kilometres long."),
                           ("Which volcano on Venus is the tallest?",
                            "The tallest volcano in the solar system is on Mars.")):
        unit = [Evidence(SAID, text, 0.0, 3.0)]
        assert _scores(minilm, "full-misheard", question, unit, [0]) == \
            pytest.approx(_scores(minilm, "full-lemmas", question, unit, [0]))


def test_a_line_saying_one_word_beyond_the_question_does_not_lead(minilm):
    units = _slide(["Early Cinema", "Silent films and live music", "Sound arrives"], 90.0,
                   120.0) + [
        Evidence(SAID, "Silent films were shown with a pianist or an orchestra playing along.",
                 99.0, 103.0)]
    question = "What music went with silent films?"
    groups = [0] * len(units)
    assert int(np.argmax(_scores(minilm, "full-misheard", question, units, groups))) == 1
    assert int(np.argmax(_scores(minilm, "full-echo1", question, units, groups))) == 3
    # one word more that is what the question asks for is the answer
    line = [Evidence(SHOWN, "SELENIUM 200 mg tablets", 24.0, 27.0)]
    question = "How many mg does each Selenium tablet contain?"
    assert _scores(minilm, "full-echo1", question, line, [0]) == \
        pytest.approx(_scores(minilm, "full-misheard", question, line, [0]))


def test_a_why_answered_without_a_reason_reads_on_into_the_next_sentence():
    fact = Evidence(SAID, "The modern distance of forty two kilometres was fixed after the "
                          "London games of 1908.", 75.0, 80.0, segment_id=3, score=1.2)
    reason = Evidence(SAID, "The extra distance let the race finish in front of the royal box.",
                      80.6, 84.0, segment_id=3, score=0.9)
    why = "Why is the marathon forty two kilometres long?"
    lead = lead_units([fact, reason], question=why)
    assert len(lead) == 1 and lead[0].text.endswith("royal box.") and lead[0].end == 84.0
    assert lead_units([fact, reason], question="How long is the marathon?")[0] == fact
    because = dataclasses.replace(fact, text="It was fixed in 1908 because the race had to "
                                             "finish in front of the royal box.")
    assert lead_units([because, reason], question=why)[0] == because


def test_people_are_counted_by_any_word_for_people():
    question = "How many people sit on a jury?"
    texts = ["In many countries a jury of twelve ordinary citizens decides the verdict.",
             "The court has twelve rooms for a jury to sit in."]
    people, rooms = _full(question, texts)
    assert people > rooms + SCORERS["full"].weight("named")


def test_a_nationality_adjective_is_not_another_name(minilm):
    """"Gandhi" heard "Gani": the sentence holds the rest of the question, and "a British
    tax" describes the tax; it names no one else, so the misheard name costs nothing
    (it abstained at 0.51). A name that happens to end like one still names."""
    from memory.answering.words import named_terms

    text = "In 1930, Gani marched to the sea to make salt in protest against a British tax."
    assert named_terms(text) == ["gani"]
    assert named_terms("Carl Sagan said the Roman Empire fell.")[:1] == tokenize("Sagan")
    question = "Why did Gandhi march to the sea?"
    unit = [Evidence(SAID, text, 170.0, 175.0)]
    assert _scores(minilm, "full-echo1", question, unit, [0])[0] > \
        _scores(minilm, "full-lemmas", question, unit, [0])[0] + SCORERS["full"].weight("named") / 2


# -- the fourth dev split's misses (held-out's fields, other subjects, Piper's voice) ----
def test_a_name_heard_in_part_counts_towards_the_rest_of_the_question(minilm):
    """"Gordon Moore" heard as "Gordon were": the sentence holds the first name and the
    question's one other term, and once scored 0.58 (abstained) for lacking the name;
    a part of the name heard is as good a sign as a second term. A first name alone with
    nothing else of the question ("Who was Gordon Brown?") is not."""
    units = _slide(["The Transistor", "Billions on a chip"], 363.0, 370.0) + [
        Evidence(SAID, "Gordon were predicted that the number of transistors on a chip "
                       "would double every two years.", 363.0, 367.0)]
    question = "What did Gordon Moore predict?"
    groups = [0] * len(units)
    before = _scores(minilm, "full-lemmas", question, units, groups)[2]
    after = _scores(minilm, "full-echo1", question, units, groups)[2]
    assert before < AnswerOptions().min_score < after
    alone = _scores(minilm, "full-echo1", "Who was Gordon Brown?", units, groups)[2]
    assert alone == pytest.approx(_scores(minilm, "full-lemmas", "Who was Gordon Brown?",
                                          units, groups)[2])


def test_a_short_name_heard_close_in_sound_and_spelling_supports_the_unit(minilm):
    """"Orfeo" heard as "Orphy": a sound skeleton of three letters (o-r-f) is too short to
    trust alone ("Paris" and "press" share p-r-s), so it counts only when the spellings
    (read as sounds: "ph" as "f") are also two edits apart at most."""
    from memory.answering.words import sounds_alike

    assert sounds_alike("orfeo", "orphi") and sounds_alike("kelvin", "calvin")
    for a, b in (("paris", "press"), ("paris", "price"), ("nile", "nail"), ("rome", "ram")):
        assert not sounds_alike(a, b), (a, b)
    unit = [Evidence(SAID, "Claudio Monteverdi wrote Orphy, one of the first great operas, "
                           "in 1,607.", 78.0, 84.0)]
    assert _scores(minilm, "full-echo1", "Who wrote Orfeo?", unit, [0])[0] > \
        AnswerOptions().min_score


def test_a_place_is_found_at_the_start_of_a_sentence_and_after_the_town_of():
    """"In the Netherlands there were more bicycles than people" answers "Where ...?"
    as much as "there were more bicycles than people in the Netherlands" does, and so
    does "in the town of Cremona"; a year after "In" is no place."""
    from memory.answering.words import unit_types

    for text in ("In the Netherlands there were more bicycles than people.",
                 "Antonio Stradivari made more than a thousand instruments in the town of "
                 "Cremona.", "At Kitty Hawk the brothers tested their gliders."):
        assert "place" in unit_types(text), text
    for text in ("In 1930 the march began.", "In the morning they left.",
                 "Each company put its own metal mark on the buildings it covered."):
        assert "place" not in unit_types(text), text


def test_what_a_thing_is_made_from_is_a_kind_of_answer(minilm):
    """"What was the purple dye made from?": both sentences hold "purple" and "dye"
    (dev5's Phoenicians); the one that says what it was made from answers."""
    from memory.answering.words import question_type, unit_types

    assert question_type("What was the purple dye made from?") == "material"
    assert question_type("What is the tapestry made of?") == "material"
    assert "material" in unit_types("Chocolate is made from the seeds of the cacao tree.")
    assert "material" not in unit_types("The dye was so costly that purple became the colour.")
    units = [Evidence(SAID, "They became rich selling a purple dye made from crushed sea "
                            "snails.", 131.1, 134.9),
             Evidence(SAID, "The dye was so costly that purple became the color of kings.",
                      134.9, 138.9)]
    question = "What was the purple dye made from?"
    assert int(np.argmax(_scores(minilm, "full-echo1", question, units, [0, 0]))) == 0


def test_a_relative_clause_describes_what_is_asked_about(minilm):
    """"What spread the diseases that killed the canal workers?": the clause after
    "that" says which diseases; what is asked is what spread them. Weighed as much as
    the rest, it made "Yellow fever and malaria killed thousands of the workers" lead
    (dev4); at half weight the sentence that says what spread them does. A "that" after
    a verb of saying or showing opens what was said, not a description."""
    from memory.answering.words import clause_terms

    assert clause_terms("What spread the diseases that killed the canal workers?") == \
        set(tokenize("killed canal workers"))
    assert clause_terms("Who designed the lens that sends the beam far out to sea?") == \
        set(tokenize("sends beam far out sea"))
    assert clause_terms("How did Otis show that his brake was safe?") == set()
    assert clause_terms("What did the Aztecs use as money?") == set()
    units = _slide(["The Panama Canal", "Fighting disease"], 221.0, 251.0) + [
        Evidence(SAID, "Yellow fever and malaria killed thousands of the workers.",
                 228.6, 231.8),
        Evidence(SAID, "Doctors later showed that mosquito spread the diseases and "
                       "draining the swamp -saved lides.", 232.0, 237.4)]
    question = "What spread the diseases that killed the canal workers?"
    assert int(np.argmax(_scores(minilm, "full-echo1", question, units, [0] * 4))) == 3
