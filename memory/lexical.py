"""Lexical matching: the terms of a text, FTS5 queries over them, and rank fusion.

Dense embeddings blur names, numbers and rare terms ("Zanzibar", "42 kelvin"); BM25 over
transcript and slide text catches them. The index itself is SQLite FTS5 inside the
memory's own database (`memory.store.db`); this module decides what its terms are, so
the index, the queries and the few texts scored outside the index (the stretch not yet
closed into a segment) all see the same terms:

- letters and digits of any script, lower-cased, accents of Latin letters folded
  ("Schrödinger" and "Schrodinger" are one term), stop words dropped, British and
  American spellings folded ("vapour"/"vapor", "centre"/"center"), which Whisper mixes,
  and English words stemmed (Snowball's English stemmer: "received" and "receive",
  "stretched" and "stretch" are one term; other scripts only lose a plural "s");
- Chinese and Japanese, written without spaces, become single characters plus
  adjacent-character bigrams, so a word inside a run of text is still found.

FTS5 stores these terms (space-separated) and its ``unicode61`` tokenizer (with its own
diacritics folding off) reads them back unchanged. `fts5_bm25` is FTS5's own ``bm25()`` formula, for a text outside the index.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from functools import lru_cache

__all__ = ["STOP_WORDS", "TERMS_VERSION", "fts5_bm25", "fts5_bm25_counts", "fts_query",
           "index_terms", "reciprocal_rank_fusion", "tokenize"]

TERMS_VERSION = "3"
"""How `tokenize` cuts terms; a lexical index written with other terms is rewritten."""

_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]+")
STOP_WORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do",
     "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in",
     "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "she", "so", "that",
     "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we",
     "were", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
     "about", "after", "before", "said", "say", "says", "tell", "told"]
)


def _fold(text: str) -> str:
    """Lower case, accents dropped from Latin letters ("ö" -> "o"; "й" stays "й")."""
    out, latin = [], False
    for c in unicodedata.normalize("NFKD", text.casefold()):
        if unicodedata.combining(c):
            if latin:
                continue
        else:
            latin = c < "\u0250" or "\u1e00" <= c <= "\u1eff"
        out.append(c)
    return unicodedata.normalize("NFC", "".join(out))


def _cjk_terms(run: str) -> list[str]:
    return list(run) + [run[i:i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """The terms of ``text`` in order (see the module docstring)."""
    out: list[str] = []
    for word in _WORD.findall(_fold(text)):
        if _CJK.search(word):
            for piece in re.split(f"({_CJK.pattern})", word):
                if not piece:
                    continue
                out.extend(_cjk_terms(piece) if _CJK.fullmatch(piece) else _latin(piece))
            continue
        out.extend(_latin(word))
    return out


_SPELLING = ((re.compile(r"(?<=\w{3})our(s?)$"), r"or\1"),
             (re.compile(r"(?<=\w{2})tre(s?)$"), r"ter\1"),
             (re.compile(r"(?<=\w{3})is(e|es|ed|ing|ation)$"), r"iz\1"))


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _latin_term(word: str) -> str:
    for pattern, repl in _SPELLING:  # British and American spellings as one term
        word = pattern.sub(repl, word)
    if word.isascii() and word.isalpha():
        return _stemmer().stemWord(word)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _latin(word: str) -> list[str]:
    return [] if word in STOP_WORDS else [_latin_term(word)]


def index_terms(text: str) -> str:
    """What FTS5 stores for ``text``: its terms, space-separated."""
    return " ".join(tokenize(text))


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the distinct terms of ``text`` (None if none)."""
    terms = list(dict.fromkeys(tokenize(text)))
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


def fts5_bm25(query: str, text: str, docs: int, tokens: int, doc_freq: Mapping[str, int],
              k1: float = 1.2, b: float = 0.75) -> float:
    """FTS5's ``bm25()`` of ``text`` for ``query`` (negated: higher is better), scored as a
    row of an index of ``docs`` rows and ``tokens`` terms with ``doc_freq`` per term.

    As in FTS5, idf is ``log((N - n + 0.5) / (n + 0.5))``, and 1e-6 where that is not
    positive (a term in more than half the rows).
    """
    counts = Counter(tokenize(text))
    tfs = {term: counts.get(term, 0) for term in dict.fromkeys(tokenize(query))}
    return fts5_bm25_counts(tfs, sum(counts.values()), docs, tokens, doc_freq, k1, b)


def fts5_bm25_counts(tfs: Mapping[str, int], length: int, docs: int, tokens: int,
                     doc_freq: Mapping[str, int], k1: float = 1.2, b: float = 0.75) -> float:
    """`fts5_bm25` of a row of ``length`` terms holding each query term ``tfs[term]``
    times (the counts already taken, as from a stored row)."""
    n_rows = max(docs, 1)
    avg = tokens / docs if docs else max(length, 1)
    score = 0.0
    for term, tf in tfs.items():
        if not tf:
            continue
        hits = doc_freq.get(term, 0)
        idf = math.log((n_rows - hits + 0.5) / (hits + 0.5))
        idf = idf if idf > 0 else 1e-6
        score += idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length / max(avg, 1e-9)))
    return score


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60,
                           weights: Sequence[float] | None = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists: score(id) = sum of weight / (k + rank); best first.

    RRF needs no score calibration between BM25 and cosine similarity, which is why it is
    the standard way to combine them (Cormack et al., 2009).
    """
    weights = weights or [1.0] * len(rankings)
    fused: dict[int, float] = defaultdict(float)
    for ranking, weight in zip(rankings, weights):
        for rank, doc_id in enumerate(ranking):
            fused[int(doc_id)] += weight / (k + rank + 1)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
