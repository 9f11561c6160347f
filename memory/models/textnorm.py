"""Word normalisation and word error rate, for scoring transcripts against references.

Pure Python, no model: sits beside the model wrappers because ASR tests and benchmarks
use it. Normalisation lower-cases, spells out digits ("100" -> "one hundred"), drops
punctuation (keeping apostrophes inside words) and splits hyphenated words, so that a
transcript is not penalised for writing "3" where the speaker said "three".
"""

from __future__ import annotations

import re

__all__ = ["edit_distance", "normalize_words", "number_to_words", "word_error_rate"]

_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_NOT_WORD = re.compile(r"[^a-z0-9' ]+")


def number_to_words(n: int) -> str:
    """Spell out a non-negative integer in English words ("one hundred twenty three")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + number_to_words(rest))
    for value, name in _SCALES:
        if n >= value:
            rest = n % value
            head = number_to_words(n // value) + " " + name
            return head + ("" if rest == 0 else " " + number_to_words(rest))
    raise AssertionError("unreachable")  # pragma: no cover


def _spell_number(match: re.Match[str]) -> str:
    whole, _, frac = match.group(0).replace(",", "").partition(".")
    words = number_to_words(int(whole))
    if frac:
        words += " point " + " ".join(_ONES[int(d)] for d in frac)
    return f" {words} "


def normalize_words(text: str) -> list[str]:
    """Lower-cased words with numbers spelled out and punctuation removed."""
    text = text.lower().replace("%", " percent ").replace("&", " and ")
    text = _NUMBER.sub(_spell_number, text)
    text = _NOT_WORD.sub(" ", text.replace("-", " "))
    return [w.strip("'") for w in text.split() if w.strip("'")]


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / reference words, after normalisation.

    An empty reference gives 0.0 for an empty hypothesis and 1.0 otherwise.
    """
    ref, hyp = normalize_words(reference), normalize_words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return edit_distance(ref, hyp) / len(ref)


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    """Word-level Levenshtein distance (substitutions + deletions + insertions)."""
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i]
        for j, h in enumerate(hyp, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (r != h)))
        previous = current
    return previous[-1]
