"""A unit's moment: the units retrieved with it, read together by the rule ranker.

Below `memory.answering.rules`, which reads a unit with its moment (its slide, the
sentence said before it); the rules themselves are described in ``docs/answers.md``
("How a question is answered", *the moment* and *context*). ``groups`` is the moment of
each unit (None: one moment each).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.evidence import SAID, SHOWN, Evidence
from memory.lexical import tokenize

__all__ = ["SAME_SCREEN", "moment_terms", "on_screen", "same_screen", "title_and_before"]

SAME_SCREEN = 0.5
"""Two moments whose screen lines overlap this much (Jaccard) show the same slide."""


def _each(groups: Sequence[int] | None, n: int) -> list[int]:
    return list(range(n)) if groups is None else list(groups)


def same_screen(units: Sequence[Evidence], groups: Sequence[int] | None) -> list[int]:
    """``groups`` with moments that show the same screen text merged (a slide talked over
    for a minute spans several segments); moments without screen text stay apart."""
    groups = _each(groups, len(units))
    lines: dict[int, set[str]] = {}
    for g, unit in zip(groups, units):
        if unit.kind == SHOWN and not unit.boilerplate:
            lines.setdefault(g, set()).add(" ".join(tokenize(unit.text)))
    parent = {g: g for g in dict.fromkeys(groups)}

    def root(g: int) -> int:
        while parent[g] != g:
            g = parent[g]
        return g

    keyed = list(lines)
    for n, a in enumerate(keyed):
        for b in keyed[n + 1:]:
            shared = len(lines[a] & lines[b]) / len(lines[a] | lines[b])
            if shared >= SAME_SCREEN:
                parent[root(b)] = root(a)
    return [root(g) for g in groups]


def on_screen(units: Sequence[Evidence], vectors: np.ndarray, groups: Sequence[int] | None,
              weight: float) -> np.ndarray:
    """Each unit's vector read with its moment's screen (the mean vector of the lines
    shown, footers left out) added at ``weight``, renormalised; a moment with no screen
    text keeps its vectors."""
    groups = _each(groups, len(units))
    shown: dict[int, list[int]] = {}
    for i, (g, unit) in enumerate(zip(groups, units)):
        if unit.kind == SHOWN and not unit.boilerplate:
            shown.setdefault(g, []).append(i)
    if not shown:
        return vectors
    out = vectors.astype(np.float32, copy=True)
    for g, members in shown.items():
        screen = vectors[members].mean(axis=0)
        rows = [i for i, h in enumerate(groups) if h == g]
        out[rows] += weight * screen
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def moment_terms(seen: Sequence[set[str]], groups: Sequence[int] | None) -> list[set[str]]:
    """For each unit, the terms of its whole moment."""
    groups = _each(groups, len(seen))
    of: dict[int, set[str]] = {}
    for g, have in zip(groups, seen):
        of.setdefault(g, set()).update(have)
    return [of[g] for g in groups]


def title_and_before(units: Sequence[Evidence], seen: Sequence[set[str]],
                     groups: Sequence[int] | None) -> list[set[str]]:
    """For each unit, the terms of the title on screen with it (its moment's first line
    shown, top down) and of the sentence said just before it."""
    groups = _each(groups, len(seen))
    screen: dict[int, set[str]] = {}
    said: dict[int, list[int]] = {}
    for i, (g, unit) in enumerate(zip(groups, units)):
        if unit.kind == SHOWN and not unit.boilerplate:
            if g not in screen:  # the first line read, top down: the slide's title
                screen[g] = set(seen[i])
        elif unit.kind == SAID:
            said.setdefault(g, []).append(i)
    before: dict[int, int] = {}
    for members in said.values():
        members.sort(key=lambda i: units[i].start)
        before.update(zip(members[1:], members[:-1]))
    return [screen.get(g, set()) | (seen[before[i]] if i in before else set())
            for i, g in enumerate(groups)]
