"""What a question asks for and what a text holds: the word-level side of answering.

Under `memory.answering.question` (`Question` reads a question once with these) and the
rankers; above `memory.answering.wordlists` (the words themselves). Each function answers
one small question about a question or a unit:

- what the question asks for (`question_type`: a number, a person, a time, a place, a
  colour, a reason), whether it asks what was said or shown (`asked_kind`), which of its
  terms say what it is about (`content_terms`), which of them only describe what it asks
  about (`clause_terms`), the names it holds (`question_names`) and what a "how many"
  counts (`counted_term`);
- what a unit holds (`unit_types`), what its numbers count (`counts_of`,
  `counts_term`), the names it says (`named_terms`);
- when two words are the same word heard or typed differently: one typo away or a
  comparative (`near_terms`, `edits`), a name heard a little off (`name_supported`,
  `sounds_alike`, `asked_about`), an irregular past and its verb (`lemma`).

Terms are compared as `memory.lexical.tokenize` cuts them (folded, stemmed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memory.answering.wordlists import (
    COLOURS,
    GENERIC,
    IRREGULAR,
    MONTHS,
    NUMBER_WORDS,
    PEOPLE,
    PLACE_WORDS,
    THAT_VERBS,
    TITLES,
)
from memory.evidence import SAID, SHOWN
from memory.lexical import tokenize

__all__ = ["REASONS", "asked_about", "asked_kind", "clause_terms", "content_terms",
           "counted_term",
           "counts_of", "counts_term", "edits", "lemma", "name_supported", "named_terms",
           "near_terms", "question_names", "question_type", "sound_key", "sounds_alike",
           "unit_types"]

# -- what a question asks for --------------------------------------------------------------
_TYPES = (
    ("colour", re.compile(r"\b(?:what|which)\s+colou?rs?\b", re.IGNORECASE)),
    ("time", re.compile(r"^\s*when\b|\b(?:what|which|in what)\s+(?:year|century|date|month)\b",
                        re.IGNORECASE)),
    ("number", re.compile(r"\bhow\s+(?:many|much|fast|far|long|old|big|large|tall|high|deep|"
                          r"heavy|hot|cold|often)\b|\bwhat\s+(?:percentage|number|range)\b",
                          re.IGNORECASE)),
    ("person", re.compile(r"^\s*(?:who|whom|whose)\b|\bwhich\s+(?:person|scientist|man|"
                          r"woman|emperor|king|queen|composer|painter|writer|author)\b", re.IGNORECASE)),
    ("place", re.compile(r"^\s*where\b|\bwhich\s+(?:city|country|place|town|river|"
                         r"continent|mountains?)\b", re.IGNORECASE)),
    ("reason", re.compile(r"^\s*why\b", re.IGNORECASE)),
    ("material", re.compile(r"\bmade\s+(?:of|from|out\s+of)\s*\??\s*$", re.IGNORECASE)),
)
_PEOPLE_TERMS = frozenset(t for w in PEOPLE | {"people", "person", "citizen", "adult",
                                                "member", "player", "juror"}
                          for t in tokenize(w))
REASONS = re.compile(r"\b(?:because|so that|due to|since|as a result|therefore|thanks to)\b",
                      re.IGNORECASE)
_PLACE_PREP = re.compile(
    r"\b(?:[Ii]n|[Aa]t|[Ff]rom|[Nn]ear|[Tt]o|[Aa]cross|[Aa]long)\s+(?:the\s+)?"
    r"(?:(?:town|city|village|port|island|country|state|region|province|kingdom)\s+of\s+)?"
    r"[A-Z][a-z]+")
"""A place: a capitalised name after a place preposition, also opening a sentence ("In
the Netherlands ..."), also as "the town of" one ("in the town of Cremona")."""
_GENERIC_TERMS = frozenset(t for w in GENERIC for t in tokenize(w))
_SHOWN_WORDS = re.compile(r"\b(?:slide|screen|shown|show|showed|written|displayed|board|"
                          r"read)\b", re.IGNORECASE)
_SAID_WORDS = re.compile(r"\b(?:said|say|says|talk|talked|mention|mentioned|hear|heard|"
                         r"speak|spoke|spoken|tell|told)\b", re.IGNORECASE)


def question_type(question: str) -> str | None:
    """What the question asks for: colour, time, number, person, place, reason, material
    ("What is it made of?") or None."""
    return next((name for name, pattern in _TYPES if pattern.search(question)), None)


def asked_kind(question: str) -> str | None:
    """Whether the question asks what was shown (`SHOWN`) or said (`SAID`), if it says."""
    shown, said = bool(_SHOWN_WORDS.search(question)), bool(_SAID_WORDS.search(question))
    return SHOWN if shown and not said else SAID if said and not shown else None


def content_terms(question: str) -> list[str]:
    """The question's terms that say what it is about (not how it asks)."""
    return [t for t in tokenize(question) if t not in _GENERIC_TERMS]


def clause_terms(question: str) -> set[str]:
    """The terms of a relative clause that ends the question and describes what it asks
    about ("What spread the diseases [that killed the canal workers]?"): the question
    is what spread them, the clause says which diseases. A "that" after a verb of
    saying or showing ("How did Otis show that ...") opens what was said instead."""
    match = _CLAUSE.search(question)
    if not match or match.group(1).lower() in THAT_VERBS:
        return set()
    before = set(content_terms(question[:match.start(2)]))
    return {t for t in content_terms(question[match.start(2):]) if t not in before}


_CLAUSE = re.compile(r"\b(\w+)\s+(?:that|which|who|whom)\s+(\w+.*)$", re.IGNORECASE)



_NAME = re.compile(r"[^\W\d_][\w'’-]*")
_HOW_MANY = re.compile(r"\bhow\s+many\s+([^\W\d_]+)", re.IGNORECASE)
_NUMBER = re.compile(r"^\d[\d,.]*$")


def question_names(question: str) -> list[tuple[str, ...]]:
    """The names a question holds, each as its terms: runs of capitalised words after
    the first word, and acronyms ("Who built the Hanging Gardens of Babylon?": (hang,
    garden), (babylon,); "What does DNA carry?": (dna,)). A unit whose moment does not
    name one of them is likely about something else ("the Great Wall" is not "the Great
    Pyramid")."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    run_end = 0
    for i, match in enumerate(_NAME.finditer(question)):
        word = match.group()
        named = (i > 0 and word[:1].isupper()) or (len(word) >= 2 and word.isupper())
        joined = run and not question[run_end:match.start()].strip()
        if not named or not joined:
            if run:
                out.append(tuple(run))
            run = []
        if named:
            run += [t for t in tokenize(word)[:1] if t not in _GENERIC_TERMS]
        run_end = match.end()
    if run:
        out.append(tuple(run))
    return list(dict.fromkeys(name for name in out if name))


def counted_term(question: str) -> str | None:
    """What a "how many" question counts ("How many moons ...": moon), else None."""
    match = _HOW_MANY.search(question)
    terms = tokenize(match.group(1)) if match else []
    return terms[0] if terms else None


def counts_of(text: str) -> set[str]:
    """The terms a number in ``text`` counts: those of the three words after each number
    ("Saturn has 146 known moons": know, moon)."""
    words = re.findall(r"[^\W_]+(?:[,.]\d+)*", text)
    out: set[str] = set()
    for i, word in enumerate(words):
        if _NUMBER.match(word) or word.lower() in NUMBER_WORDS:
            after = [w for w in words[i + 1:i + 4]
                     if not (_NUMBER.match(w) or w.lower() in NUMBER_WORDS)]
            out.update(tokenize(" ".join(after)))
    return out


def sound_key(word: str) -> str:
    """A rough consonant skeleton of a word, so that names Whisper hears as sound-alikes
    match ("Calvin" and "Kelvin": klfn): the first letter (any vowel as "a"), then
    consonants folded by sound (c/k/q/g, f/v/ph, s/z, t/d, p/b), vowels, h, w, y
    and repeats dropped."""
    w = re.sub(r"[^a-z]", "", word.lower()).replace("ph", "f").replace("ck", "k")
    if not w:
        return ""
    fold = str.maketrans("cqgvzdbx", "kkkfstpk")
    head = "a" if w[0] in "aeiouy" else w[0].translate(fold)
    key = head
    for c in w[1:].translate(fold):
        if c not in "aeiouyhw" and c != key[-1]:
            key += c
    return key


def sounds_alike(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` share a `sound_key` of at least four letters, or one of three
    with words of five letters or more spelt (as sounds) two edits apart at most? A
    skeleton of three is too short to trust alone: "Paris" and "press" share p-r-s;
    Whisper's "Orphy" for "Orfeo" shares o-r-f and is "orfi" against "orfeo"."""
    key = sound_key(a)
    if key != sound_key(b) or len(key) < 3:
        return False
    if len(key) >= 4:
        return True
    return min(len(a), len(b)) >= 5 and edits(_as_sounds(a), _as_sounds(b), 2) <= 2


def _as_sounds(word: str) -> str:
    return word.lower().replace("ph", "f").replace("ck", "k").replace("y", "i")


def unit_types(text: str) -> set[str]:
    """What kinds of answer ``text`` holds (the types of `question_type`)."""
    words = re.findall(r"[A-Za-z]+|\d+", text)
    lower = [w.lower() for w in words]
    lower += [w[:-1] for w in lower if len(w) > 3 and w.endswith("s")]  # "thousands"
    found = set()
    if any(w.isdigit() for w in words) or NUMBER_WORDS & set(lower):
        found.add("number")
    if re.search(r"\b(?:1[0-9]{3}|20[0-9]{2})\b", text) or MONTHS & set(lower):
        found.add("time")
    if COLOURS & set(lower):
        found.add("colour")
    if REASONS.search(text):
        found.add("reason")
    capitals = [w for i, w in enumerate(words) if i > 0 and w[:1].isupper() and len(w) > 1
                and not _after_place_word(words, i)]
    title_case = sum(w[:1].isupper() for w in words) >= 0.6 * max(len(words), 1)
    if (capitals and not title_case) or TITLES & set(lower) or PEOPLE & set(lower):
        found.add("person")
    if _PLACE_PREP.search(text):
        found.add("place")
    if _MADE_OF.search(text):
        found.add("material")
    return found


_MADE_OF = re.compile(r"\b(?:made|carved|built|woven|cast)\s+(?:of|from|out\s+of)\b", re.IGNORECASE)
"""What a thing is made of: "a purple dye made from crushed sea snails"."""




def _after_place_word(words: Sequence[str], i: int) -> bool:
    """Is ``words[i]`` part of a capitalised run right after a place preposition ("in
    France", "from the United States")? That run is a place, not a person."""
    j = i - 1
    while j >= 0 and (words[j][:1].isupper() or words[j].lower() == "the"):
        j -= 1
    return j >= 0 and j < i and words[j].lower() in PLACE_WORDS


def near_terms(terms: Sequence[str], vocabulary: set[str]) -> dict[str, set[str]]:
    """For each term, the other terms of ``vocabulary`` one typo away from it (two for
    terms of nine letters or more; none for terms under five letters): "chlorophyl" and
    "clorophyl", "photosynthesi" and "photosynthes" - a user's typo or Whisper's
    misspelling of a rare word. Terms are compared as `tokenize` cut them (stemmed)."""
    out: dict[str, set[str]] = {}
    for term in terms:
        limit = 0 if len(term) < 5 or not term.isalpha() else 1 if len(term) < 9 else 2
        out[term] = {v for v in vocabulary if v != term and len(v) >= 5
                     and abs(len(v) - len(term)) <= limit
                     and edits(term, v, limit) <= limit} if limit else set()
        if len(term) >= 3 and term.isalpha():  # "hard" / "harder", "big" / "biggest"
            out[term] |= {v for v in vocabulary if _graded(term, v) or _graded(v, term)}
    return out


def _graded(word: str, form: str) -> bool:
    """Is ``form`` the comparative or superlative of ``word`` ("hard": "harder",
    "hardest"; "big": "bigger")? The stemmer leaves both forms alone."""
    return len(word) >= 3 and form in {word + e for e in ("er", "est", word[-1] + "er",
                                                           word[-1] + "est")}


def edits(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein distance (adjacent transpositions count one), or ``limit + 1``
    as soon as it must exceed ``limit``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        prev2, prev = prev, row
    return prev[-1]


def name_supported(term: str, have: set[str], near: set[str]) -> bool:
    """Is the name ``term`` in a unit of terms ``have`` (``near``: its near terms), as
    written, one typo away, as a longer or shorter form ("antarct" for "antarctica") or
    as a sound-alike ("kelvin" for "calvin")?"""
    if term in have or near & have:
        return True
    return any((min(len(term), len(h)) >= 6 and (h.startswith(term) or term.startswith(h)))
               or sounds_alike(term, h) or _one_letter_off(term, h) for h in have)


def _one_letter_off(a: str, b: str) -> bool:
    """Names of four letters or more, same first letter, one edit apart ("garri" and
    "gari": Whisper's "Gary" for "Garry"); shorter names are never guessed."""
    return (min(len(a), len(b)) >= 4 and a[0] == b[0] and abs(len(a) - len(b)) <= 1
            and a.isalpha() and b.isalpha() and edits(a, b, 1) <= 1)




def _irregular_map() -> dict[str, str]:
    out: dict[str, str] = {}
    for forms in IRREGULAR.split("|"):
        words = forms.split()
        base = next(iter(tokenize(words[0])), None)
        if base is None:  # a stop word ("be", "have"): never a term
            continue
        for word in words[1:]:
            for term in tokenize(word):
                if term != base:
                    out.setdefault(term, base)
    return out


_LEMMA: dict[str, str] = {}


def lemma(term: str) -> str:
    """The verb an irregular form of it belongs to, as `tokenize` cuts terms ("held":
    "hold", "chosen": "choos", "flew": "fli"); any other term as it is. Forms that are
    also words of their own are mapped too where the verb is the likelier reading
    ("left", "found", "saw": a question asks with the verb, the narration answers with
    its past); verbs whose forms are more often other words are left out ("born" is
    not "bear", "ground" not "grind", "wound" not "wind", "bit" not "bite")."""
    if not _LEMMA:
        _LEMMA.update(_irregular_map())
    return _LEMMA.get(term, term)


_DEMONYM = re.compile(r"(?:ish|ese|ian|ean|an|ch)$")
_ARTICLES = frozenset(("The", "A", "An"))
"""How a nationality adjective ends (British, Chinese, Italian, European, Roman, French)."""


def named_terms(text: str) -> list[str]:
    """The terms of the capitalised words of ``text`` after its first word (the names it
    says: "The tallest volcano ... is on Mars": mars). A nationality adjective between an
    article or a word in lower case and one in lower case describes, it does not name
    ("a British tax", "The French company"); "Carl Sagan said" still names Sagan."""
    words = _NAME.findall(text)
    out = []
    for i, w in enumerate(words[1:], 1):
        if not w[:1].isupper():
            continue
        follows = words[i + 1] if i + 1 < len(words) else ""
        before = words[i - 1]
        described = before[:1].islower() or (i == 1 and before in _ARTICLES)
        if _DEMONYM.search(w) and follows[:1].islower() and described:
            continue  # "a British tax"; not "Carl Sagan said"
        out += tokenize(w)[:1]
    return out


def asked_about(term: str, asked: set[str]) -> bool:
    """Is the unit's name ``term`` one the question asks about (as a term, near one, or
    heard a little off: a name of six letters or more, same first letter, two edits:
    "chitchin" for "chichen")?"""
    return term in asked or any(
        name_supported(a, {term}, set()) or (len(a) >= 6 and a[:1] == term[:1] and a.isalpha()
                                          and edits(a, term, 2) <= 2)
        for a in asked)


_PERSON_TERMS = frozenset(t for w in ("people", "person", "persons") for t in tokenize(w))


def counts_term(term: str, text: str, near: Mapping[str, set[str]]) -> bool:
    """Does a number in ``text`` count ``term`` (or a near term of it)? People are
    counted by any word for people ("How many people sit on a jury?": "a jury of twelve
    ordinary citizens")."""
    counted = counts_of(text)
    if term in _PERSON_TERMS and counted & _PEOPLE_TERMS:
        return True
    return term in counted or bool(near.get(term, set()) & counted)
