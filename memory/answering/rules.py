"""`RuleRanker`: the embedded ranker, today's answering rules as named features.

Each feature is a name with a weight (or a switch: a way of reading the question and
the units, with no weight of its own); a ranker is a set of them, and a variant is a set
too: ``RuleRanker().without("clauses")`` is the default minus the relative-clause rule.
What each rule does, and why, is written once, in ``docs/answers.md`` ("How a question
is answered" and its feature table, which a test holds to `FEATURES`).

A unit's score is the weighted ``dense`` cosine plus, per unit, the ``lexical`` share of
the question's terms it holds, the ``type`` bonus, ``info``, the ``echo`` costs, ``kind``,
the moment's ``prior`` and the ``named`` cost, added in that order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memory.answering.moments import moment_terms, on_screen, same_screen, title_and_before
from memory.answering.question import Question
from memory.answering.rank import RankContext, Scores
from memory.answering.words import (
    asked_about,
    counts_term,
    lemma,
    name_supported,
    named_terms,
    near_terms,
    unit_types,
)
from memory.evidence import Evidence
from memory.lexical import tokenize

__all__ = ["DEFAULT_FEATURES", "FEATURES", "FUZZY_CREDIT", "MISHEARD_SHARE", "MISHEARD_TERMS",
           "Feature", "RuleRanker"]

FUZZY_CREDIT = 0.8
"""A question term found only misspelt in a unit counts this much of a term found exactly."""
MISHEARD_TERMS = 2
MISHEARD_SHARE = 2 / 3
"""A unit holding this many of a question's terms besides its names, and this share of
their weight, is about the question even where its moment lacks the names (misheard)."""


@dataclass(frozen=True)
class Feature:
    """A rule of `RuleRanker`: its name and default weight (None: a switch)."""

    name: str
    weight: float | None = None


FEATURES: tuple[Feature, ...] = (
    Feature("dense", 1.0),
    Feature("lexical", 0.6),
    Feature("type", 0.3),
    Feature("type_needs_terms"),
    Feature("info", 0.1),
    Feature("prior", 0.1),
    Feature("kind", 0.1),
    Feature("named", 0.5),
    Feature("counts"),
    Feature("echo", 0.3),
    Feature("context", 0.5),
    Feature("screen", 1.0),
    Feature("slides"),
    Feature("near_context"),
    Feature("lemmas"),
    Feature("misheard_names"),
    Feature("echo_one", 0.15),
    Feature("clauses", 0.5),
)
"""Every rule, in the order they were added (see ``docs/answers.md``)."""
DEFAULT_FEATURES = frozenset(f.name for f in FEATURES)
_WEIGHTS = {f.name: f.weight for f in FEATURES if f.weight is not None}


@dataclass(frozen=True)
class RuleRanker:
    """Scores units by the rules in ``features`` (default: all of `FEATURES`), each
    weighted by ``weights`` (a feature left out weighs nothing). ``min_score``: the
    abstention threshold of the default, calibrated with
    `memory.benchmarks.qa.calibrate` on the tuning, dev and dev2 splits pooled (never on
    held-out): how it was chosen is in ``docs/answers.md`` ("Abstention"). Recalibrate
    for another feature set, weight or embedder."""

    features: frozenset[str] = DEFAULT_FEATURES
    weights: Mapping[str, float] = field(default_factory=lambda: dict(_WEIGHTS))
    min_score: float = 0.977

    def __post_init__(self) -> None:
        unknown = (set(self.features) | set(self.weights)) - DEFAULT_FEATURES
        if unknown:
            raise ValueError(f"unknown ranker feature(s) {sorted(unknown)}; the features "
                             f"are {[f.name for f in FEATURES]}")
        object.__setattr__(self, "features", frozenset(self.features))
        object.__setattr__(self, "weights", {**_WEIGHTS, **self.weights})

    @property
    def name(self) -> str:
        """"rules", or how the feature set and weights differ from the default."""
        out = [f"-{n}" for n in sorted(DEFAULT_FEATURES - self.features)]
        out += [f"{n}={w:g}" for n, w in sorted(self.weights.items()) if w != _WEIGHTS[n]]
        return " ".join(["rules", *out])

    def without(self, *names: str) -> RuleRanker:
        """This ranker minus the named features."""
        return dataclasses.replace(self, features=self.features - set(names))

    def weighted(self, **weights: float) -> RuleRanker:
        """This ranker with other weights for the named features."""
        return dataclasses.replace(self, weights={**self.weights, **weights})

    def weight(self, name: str) -> float:
        """The feature's weight, 0 when it is not in the set."""
        return self.weights[name] if name in self.features else 0.0

    def on(self, name: str) -> bool:
        return name in self.features

    # -- scoring -------------------------------------------------------------------------
    def rank(self, question: Question, units: Sequence[Evidence],
             context: RankContext) -> Scores:
        if not units:
            return Scores(np.zeros(0))
        read = self._read(question, units, context)
        total = self.weight("dense") * np.clip(read.vectors @ context.vector, 0.0, 1.0)
        for i in range(len(units)):
            total[i] += self._unit_score(read, i)
        return Scores(total)

    def _read(self, question: Question, units: Sequence[Evidence],
              context: RankContext) -> _Reading:
        """What every unit's score reads: the question's terms and their weights, the
        units' terms, their moments, the names their moments lack."""
        groups = same_screen(units, context.groups) if self.on("slides") else context.groups
        vectors = context.vectors
        if self.weight("screen"):
            vectors = on_screen(units, vectors, groups, self.weight("screen"))
        terms = list(question.terms)
        if self.on("lemmas"):
            terms = list(dict.fromkeys(lemma(t) for t in terms))
        weight = {t: context.idf.get(t, 1.0) for t in terms}
        if self.on("clauses"):  # "... the diseases [that killed the canal workers]"
            described = {lemma(t) for t in question.clause} if self.on("lemmas") \
                else set(question.clause)
            weight = {t: w * (self.weight("clauses") if t in described else 1.0)
                      for t, w in weight.items()}
        seen = [set(tokenize(unit.text)) for unit in units]
        if self.on("lemmas"):
            seen = [{lemma(t) for t in have} for have in seen]
        names = list(question.names) if self.weight("named") else []
        name_terms = [t for name in names for t in name]
        near = near_terms(list(dict.fromkeys(terms + name_terms)), set().union(*seen))
        missing = _missing_names(names, weight, seen, near, groups)
        if self.on("misheard_names") and names:
            missing = _misheard(missing, units, names, name_terms, weight, seen, near)
        around = None
        if self.weight("context"):
            around = title_and_before(units, seen, groups) if self.on("near_context") \
                else moment_terms(seen, groups)
        counted = question.counted if self.on("counts") and question.wanted == "number" \
            else None
        return _Reading(question, units, context.priors, vectors, terms, weight,
                        sum(weight.values()) or 1.0, seen, near, missing, around, counted)

    def _unit_score(self, read: _Reading, i: int) -> float:
        """Unit ``i``'s score beyond the dense cosine, its parts added in `FEATURES`
        order (the sums are the same, bit for bit, as before the features had names)."""
        coverage = self._coverage(read, i)
        new = len(read.seen[i] - set(read.terms))
        parts = self.weight("lexical") * coverage
        parts += self._type(read, i, coverage)
        parts += self.weight("info") * min(1.0, new / 5.0) if self.weight("info") else 0.0
        parts -= self._echo(read, i, new)
        parts += self._kind(read, i)
        return parts + self.weight("prior") * read.priors[i] - \
            self.weight("named") * read.missing[i]

    def _coverage(self, read: _Reading, i: int) -> float:
        """``lexical`` and ``context``: the weighted share of the question's terms the
        unit holds (near forms count `FUZZY_CREDIT`, its moment's ``context``)."""
        have, near, around = read.seen[i], read.near, read.around
        context = self.weight("context")
        return sum(w * (1.0 if t in have else FUZZY_CREDIT if near[t] & have else
                        context if around is not None and t in around[i] else 0.0)
                   for t, w in read.weight.items()) / read.norm

    def _type(self, read: _Reading, i: int, coverage: float) -> float:
        """``type`` (with ``type_needs_terms`` and ``counts``): the unit holds what the
        question asks for, less the share of its names the moment lacks."""
        wanted, text = read.question.wanted, read.units[i].text
        if not self.weight("type") or wanted is None or wanted not in unit_types(text):
            return 0.0
        bonus = self.weight("type") * (min(1.0, 2.0 * coverage)
                                       if self.on("type_needs_terms") else 1.0)
        if read.counted is not None and not counts_term(read.counted, text, read.near):
            bonus = -max(self.weight("named"), self.weight("type"))
        return bonus * (1.0 - read.missing[i])

    def _echo(self, read: _Reading, i: int, new: int) -> float:
        """``echo`` and ``echo_one``: the cost of a unit saying nothing (or one word)
        beyond the question's terms, unless that word is what the question asks for."""
        if self.weight("echo") and not new:
            return self.weight("echo")
        wanted = read.question.wanted
        if self.weight("echo_one") and new == 1 and \
                not (wanted and wanted in unit_types(read.units[i].text)):
            return self.weight("echo_one")
        return 0.0

    def _kind(self, read: _Reading, i: int) -> float:
        """``kind``: the unit is of the kind the question asks about (said or shown)."""
        kind = read.question.kind
        if self.weight("kind") and kind is not None and read.units[i].kind == kind:
            return self.weight("kind")
        return 0.0


@dataclass
class _Reading:
    question: Question
    units: Sequence[Evidence]
    priors: Sequence[float]
    vectors: np.ndarray
    terms: list[str]
    weight: dict[str, float]
    norm: float
    seen: list[set[str]]
    near: dict[str, set[str]]
    missing: list[float]
    around: list[set[str]] | None
    counted: str | None


# -- names ---------------------------------------------------------------------------------
def _missing_names(names, weight, seen, near, groups) -> list[float]:
    """For each unit, the (idf-weighted) share of the question's names that nothing in
    its moment names, every word."""
    if not names:
        return [0.0] * len(seen)
    groups = list(range(len(seen))) if groups is None else list(groups)
    terms_of: dict[int, set[str]] = {}
    for g, have in zip(groups, seen):
        terms_of.setdefault(g, set()).update(have)
    size = {name: sum(weight.get(t, 1.0) for t in name) for name in names}
    norm = sum(size.values()) or 1.0
    share = {g: sum(size[name] for name in names
                    if not all(name_supported(t, have, near[t]) for t in name)) / norm
             for g, have in terms_of.items()}
    return [share[g] for g in groups]


def _misheard(missing: list[float], units: Sequence[Evidence],
              names: Sequence[tuple[str, ...]], name_terms: Sequence[str],
              weight: Mapping[str, float], seen: Sequence[set[str]],
              near: Mapping[str, set[str]]) -> list[float]:
    """No missing-name cost for a unit that holds at least `MISHEARD_TERMS` of the
    question's other terms and `MISHEARD_SHARE` of their weight (a name of several words
    heard in part counts as one), and names nothing the question does not."""
    others = {t: w for t, w in weight.items() if t not in set(name_terms)}
    total = sum(others.values())
    asked = set(weight) | {t for t in name_terms} | set().union(*near.values())
    out = list(missing)
    for i, have in enumerate(seen):
        if not out[i] or not total:
            continue
        held = [t for t in others if t in have or near.get(t, set()) & have]
        if len(held) + _heard_in_part(names, have, near) < MISHEARD_TERMS or \
                sum(others[t] for t in held) < MISHEARD_SHARE * total:
            continue
        if any(not asked_about(term, asked) for term in named_terms(units[i].text)):
            continue  # it names something else: about that, not the question
        out[i] = 0.0
    return out


def _heard_in_part(names: Sequence[tuple[str, ...]], have: set[str],
                   near: Mapping[str, set[str]]) -> int:
    """How many of the question's names of several words ``have`` holds some words of,
    not all ("Gordon" of "Gordon Moore", the surname heard as "were")."""
    count = 0
    for name in names:
        heard = [name_supported(t, have, near.get(t, set())) for t in name]
        count += len(name) > 1 and any(heard) and not all(heard)
    return count
