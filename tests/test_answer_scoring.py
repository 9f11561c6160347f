"""The unit scorer's lexical part: exact terms, misspelt terms (one typo), and what it
must not match (the dense part is zeroed so the lexical part is what is measured)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.answer import FUZZY_CREDIT, SCORERS, near_terms
from memory.evidence import SAID, Evidence
from memory.lexical import tokenize


def _score(question, texts):
    units = [Evidence(SAID, t, float(i), float(i) + 1.0) for i, t in enumerate(texts)]
    vectors = np.zeros((len(units), 4), np.float32)  # no dense signal: lexical only
    scorer = SCORERS["dense+lexical"]
    return scorer.score(question, np.zeros(4, np.float32), units, vectors,
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
