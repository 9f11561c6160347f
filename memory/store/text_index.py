"""`TextIndex`: one level's FTS5 index (segments or chapters) inside the memory's SQLite
file, ranked by BM25, also as of a time (the causal cutoff ranks with the statistics of
the rows under it).

Store layer, below `memory.store.db` (which owns the connection and the transactions
its writes run in)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence

from memory.lexical import fts5_bm25, fts5_bm25_counts, fts_query, index_terms, tokenize

__all__ = ["TextIndex"]


def _marks(values: Sequence) -> str:
    return ",".join("?" * len(values))


class TextIndex:
    """The FTS5 index of one level (segments or chapters): BM25 over their summaries.

    Row ids are the level's ids, which grow with time, so a time window (and the causal
    cutoff) is an id range FTS5 applies itself; a range that stops before the last row
    is also ranked with the statistics of the rows under it (`_search_before`), so what
    came later does not weigh a question asked earlier. Terms are
    `memory.lexical.index_terms`.
    """

    def __init__(self, conn: sqlite3.Connection, table: str) -> None:
        self.conn, self.table = conn, table
        self.vocab = table.replace("_fts", "_vocab")
        self._totals = (-1, 0)  # (rows, terms) of the index when last counted
        self._below: dict[tuple[int, int], int] = {}  # terms under an id, last asked

    def write(self, row_id: int, text: str) -> None:
        """Index ``text`` as row ``row_id`` (replacing it); call inside a transaction."""
        self.conn.execute(f"DELETE FROM {self.table} WHERE rowid=?", (row_id,))
        self.conn.execute(f"INSERT INTO {self.table}(rowid, terms) VALUES (?, ?)",
                          (row_id, index_terms(text)))

    def search(self, query: str, k: int,
               id_range: tuple[int, int] | Sequence[tuple[int, int]] | None = None
               ) -> list[tuple[int, float]]:
        """The ``k`` best ``(id, bm25)`` rows in ``id_range`` (one ``[lo, hi)`` range or a
        list of them, as a video library scopes several videos; higher is better). One
        range ending before the last row is ranked as if nothing after it existed."""
        match = fts_query(query)
        if match is None:
            return []
        ranges = [id_range] if id_range is not None and len(id_range) == 2 \
            and not isinstance(id_range[0], (tuple, list)) else id_range
        if ranges is None or len(ranges) == 1:
            lo, hi = ranges[0] if ranges else (-(2**62), 2**62)
            where, args = "rowid >= ? AND rowid < ?", (lo, hi)
        else:  # many ranges: one JSON argument, tested per matching row (the table's
            # rowid named in full: a bare rowid in the subquery is json_each's own)
            t = self.table
            where = (f"EXISTS (SELECT 1 FROM json_each(?) r WHERE {t}.rowid >= r.value->>0 "
                     f"AND {t}.rowid < r.value->>1)")
            args = (json.dumps([[int(a), int(b)] for a, b in ranges]),)
        if ranges is not None and ranges[0] is id_range and hi <= self._last_id():
            # one (lo, hi) range is a video's causal cutoff (a list of them is a
            # library's scope of videos, ranked on the whole index as before)
            return self._search_before(query, match, k, lo, hi)
        rows = self.conn.execute(
            f"SELECT rowid, bm25({self.table}) AS r FROM {self.table} WHERE {self.table} "
            f"MATCH ? AND {where} ORDER BY r, rowid LIMIT ?", (match, *args, k)).fetchall()
        return [(int(i), -float(r)) for i, r in rows]

    def _search_before(self, query: str, match: str, k: int, lo: int, hi: int
                       ) -> list[tuple[int, float]]:
        """`search` of ``[lo, hi)`` when rows after ``hi`` exist (a question asked back in
        time): FTS5's bm25() would weigh terms and lengths by every row, later ones too,
        so the rows are scored here by its formula with the statistics of the rows under
        ``hi`` only, as if nothing later had been indexed."""
        rows = self.conn.execute(
            f"SELECT rowid, terms FROM {self.table} WHERE {self.table} MATCH ? "
            f"AND rowid >= ? AND rowid < ?", (match, lo, hi)).fetchall()
        if not rows:
            return []
        terms = list(dict.fromkeys(tokenize(query)))
        docs, tokens, freq = self.rows(hi), self._tokens_below(hi), self.doc_freq(terms, hi)
        phrases = {t: tuple(_fts_tokens(t)) for t in terms}
        scored = []
        for row_id, text in rows:
            have = _fts_tokens(text)
            tfs = {t: _occurrences(p, have) for t, p in phrases.items()}
            scored.append((int(row_id), fts5_bm25_counts(tfs, len(have), docs, tokens, freq)))
        return sorted(scored, key=lambda p: (-p[1], p[0]))[:k]

    def _last_id(self) -> int:
        """The highest row id indexed (-1 when empty)."""
        last = self.conn.execute(f"SELECT MAX(id) FROM {self.table}_docsize").fetchone()[0]
        return -1 if last is None else int(last)

    def _tokens_below(self, hi: int) -> int:
        """Terms in the rows with ids under ``hi`` (FTS5's own per-row sizes)."""
        key = (hi, self._last_id())
        if key not in self._below:
            sizes = self.conn.execute(f"SELECT sz FROM {self.table}_docsize WHERE id < ?",
                                      (hi,)).fetchall()
            self._below = {key: sum(_varint(bytes(b)) for (b,) in sizes)}
        return self._below[key]

    def score_text(self, query: str, text: str) -> float:
        """BM25 of a text outside the index, with the index's statistics (FTS5's formula),
        so it ranks on the same scale as indexed rows."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms:
            return 0.0
        docs, tokens = self._size()
        return fts5_bm25(query, text, docs, tokens, self.doc_freq(terms))

    def doc_freq(self, terms: Sequence[str], below: int | None = None) -> dict[str, int]:
        """In how many rows each of ``terms`` (`memory.lexical.tokenize` terms) occurs
        (only rows with ids under ``below``, when given: what was indexed by a time)."""
        if not terms:
            return {}
        if below is None:
            return dict(self.conn.execute(
                f"SELECT term, doc FROM {self.vocab} WHERE term IN ({_marks(terms)})",
                list(terms)))
        counts = ((t, self.conn.execute(
            f"SELECT COUNT(*) FROM {self.table} WHERE {self.table} MATCH ? AND rowid < ?",
            (f'"{t}"', below)).fetchone()[0]) for t in dict.fromkeys(terms))
        return {t: int(n) for t, n in counts if n}

    def rows(self, below: int | None = None) -> int:
        """Rows in the index (with ids under ``below``, when given)."""
        if below is None:
            return self._size()[0]
        return int(self.conn.execute(f"SELECT COUNT(*) FROM {self.table}_docsize WHERE id < ?",
                                     (below,)).fetchone()[0])

    def _size(self) -> tuple[int, int]:
        """Rows and terms in the index; the terms are recounted only when rows changed
        (rows are appended, never edited, so the row count is a sufficient key)."""
        docs = self.conn.execute(f"SELECT COUNT(*) FROM {self.table}_docsize").fetchone()[0]
        if docs != self._totals[0]:
            tokens = self.conn.execute(f"SELECT COALESCE(SUM(cnt), 0) FROM {self.vocab}"
                                       ).fetchone()[0]
            self._totals = (docs, int(tokens))
        return self._totals

    def missing(self, ids: Iterable[int]) -> list[int]:
        have = {r[0] for r in self.conn.execute(f"SELECT rowid FROM {self.table}")}
        return [i for i in ids if i not in have]


def _fts_tokens(text: str) -> list[str]:
    """A stored row's tokens as FTS5's unicode61 tokenizer cuts them (no diacritics
    removed, underscores split)."""
    return re.findall(r"[^\W_]+", text.lower())


def _occurrences(phrase: tuple[str, ...], tokens: list[str]) -> int:
    """How often ``phrase`` (a term's tokens) occurs in ``tokens``, as FTS5 counts it."""
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    n = len(phrase)
    return sum(tuple(tokens[i:i + n]) == phrase for i in range(len(tokens) - n + 1)) \
        if phrase else 0


def _varint(blob: bytes) -> int:
    """The first (only) column size of an FTS5 ``_docsize`` blob (an SQLite varint)."""
    value = 0
    for byte in blob[:9]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            break
    return value
