"""A video library synthesized at hundreds of hours, for timing and scoring the index.

Ingesting a thousand hours to time a query is out of reach: `synthetic_library` writes
rows made like real ones straight into a `VideoLibrary`, through its real merge path.

- Segments last 4-30 s (about 280 an hour, as ingested lectures have) and are rolled into
  chapters by the real `ChapterRoller` (about 20 an hour, embedded as the mean of their
  segments); summaries are made by the real `segment_summary` from a slide text and
  narration sentences of the packaged lecture topics, plus words from a Zipf-distributed
  vocabulary of 20,000 made-up words, so the lexical index grows as a library's does.
- Vectors follow a model fitted to real MiniLM embeddings of those topics (`VectorModel`):
  their mean direction and a power-law covariance spectrum; each video has a centre
  (one of the topics, moved by a random offset) and its segments spread around it. The
  two spreads are set so the mean cosine between segments of one video and between
  segments of different videos match those of the real sentences of one topic and of
  different topics. Questions are drawn the same way as a segment of a random video.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from memory.store.config import StoreOptions
from memory.store.hierarchy import ChapterRoller, segment_summary
from memory.store.records import ChapterRecord, SegmentRecord

__all__ = ["VectorModel", "synthetic_library", "synthetic_video"]

_SYLLABLES = ("ka", "lo", "mi", "ren", "tor", "vel", "an", "is", "qua", "zen", "pro", "dex",
              "sol", "mar", "ti", "ne", "ul", "bra", "fo", "gen")


@dataclass
class VectorModel:
    """Gaussian model of sentence embeddings: ``mean`` + ``basis.T @ (sqrt(spectrum) z)``."""

    mean: np.ndarray
    basis: np.ndarray       # (dim, dim) orthonormal rows
    spectrum: np.ndarray    # (dim,) variances along them
    topics: np.ndarray      # (n_topics, dim) real topic centres
    between: float = 1.0    # spread of video centres around their topic
    within: float = 1.0     # spread of segments around their video's centre
    real_stats: tuple[float, float] = (0.0, 0.0)  # (same topic, different topics) cosines

    @classmethod
    def fit(cls, vectors: np.ndarray, topic_of: np.ndarray, seed: int = 0) -> VectorModel:
        """Fit to real embeddings ``vectors`` whose topic is ``topic_of``."""
        rng = np.random.default_rng(seed)
        mean = vectors.mean(0)
        _, s, vt = np.linalg.svd(vectors - mean, full_matrices=False)
        lam = s ** 2 / len(vectors)
        top = max(2, min(100, len(lam) - 1))
        slope, icept = np.polyfit(np.log(np.arange(1, top + 1)), np.log(lam[:top] + 1e-12), 1)
        dim = vectors.shape[1]
        spectrum = np.exp(icept) * np.arange(1, dim + 1, dtype=float) ** slope
        basis, _ = np.linalg.qr(np.hstack([vt.T, rng.standard_normal((dim, dim - len(vt)))]))
        topics = np.vstack([vectors[topic_of == t].mean(0) for t in np.unique(topic_of)])
        model = cls(mean, basis.T, spectrum, topics)
        model.real_stats = _cosines(vectors, topic_of)
        model._calibrate(rng)
        return model

    def _draw(self, rng, n: int, scale: float) -> np.ndarray:
        z = rng.standard_normal((n, len(self.spectrum))) * np.sqrt(self.spectrum) * scale
        return z @ self.basis

    def centres(self, rng, n: int) -> np.ndarray:
        picked = self.topics[rng.integers(0, len(self.topics), n)]
        return picked + self._draw(rng, n, self.between)

    def around(self, rng, centre: np.ndarray, n: int) -> np.ndarray:
        v = centre + self._draw(rng, n, self.within)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    def synthetic_stats(self, rng, videos: int = 40, per: int = 30) -> tuple[float, float]:
        centres = self.centres(rng, videos)
        vectors = np.vstack([self.around(rng, c, per) for c in centres])
        return _cosines(vectors, np.repeat(np.arange(videos), per))

    def _calibrate(self, rng) -> None:
        """Set ``within`` and then ``between`` by bisection so the synthetic cosines match
        the real ones (same video ~ same topic; different videos ~ different topics)."""
        same, other = self.real_stats
        for attr, target, which in (("within", same, 0), ("between", other, 1)) * 3:
            lo, hi = 0.05, 8.0
            for _ in range(18):
                mid = math.sqrt(lo * hi)
                setattr(self, attr, mid)
                got = self.synthetic_stats(np.random.default_rng(rng.integers(1 << 31)))[which]
                lo, hi = (mid, hi) if got > target else (lo, mid)
            setattr(self, attr, math.sqrt(lo * hi))

    def questions(self, rng, n: int) -> np.ndarray:
        return np.vstack([self.around(rng, c, 1) for c in self.centres(rng, n)])


def _cosines(vectors: np.ndarray, group: np.ndarray) -> tuple[float, float]:
    v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = v @ v.T
    same = np.equal.outer(group, group)
    off = ~np.eye(len(v), dtype=bool)
    return float(sims[same & off].mean()), float(sims[~same].mean())


def real_model(embedder, seed: int = 0) -> tuple[VectorModel, list[str]]:
    """A `VectorModel` fitted to ``embedder``'s vectors of the packaged lecture topics,
    and those topics' questions."""
    from memory.samples.topics import QUESTIONS, TOPICS

    texts, topic_of = [], []
    for i, (title, bullets, sentences) in enumerate(TOPICS):
        for text in (title, *bullets, *sentences):
            texts.append(text)
            topic_of.append(i)
    vectors = np.asarray(embedder.embed(texts), np.float32)
    return VectorModel.fit(vectors, np.array(topic_of), seed), list(QUESTIONS.values())


def _words(rng, n: int) -> list[str]:
    """Made-up words, Zipf-distributed over a 20,000-word vocabulary."""
    ranks = np.minimum(rng.zipf(1.3, n), 20_000)
    out = []
    for r in ranks:
        word, x = "", int(r)
        while True:
            word += _SYLLABLES[x % len(_SYLLABLES)]
            x //= len(_SYLLABLES)
            if not x:
                break
        out.append(word)
    return out


def synthetic_video(rng, model: VectorModel, seconds: float,
                    options: StoreOptions | None = None
                    ) -> tuple[list[SegmentRecord], list[ChapterRecord]]:
    """Segments and chapters of one video of ``seconds`` (ids from 0, as in its memory)."""
    from memory.samples.topics import TOPICS

    options = options or StoreOptions()
    title, bullets, sentences = TOPICS[rng.integers(0, len(TOPICS))]
    centre = model.centres(rng, 1)[0]
    spans, t = [], 0.0
    while t < seconds:
        d = min(float(rng.uniform(options.min_segment_s, options.max_segment_s)), seconds - t)
        spans.append((t, t + max(d, 1.0)))
        t += max(d, 1.0)
    vectors = model.around(rng, centre, len(spans))
    roller = ChapterRoller(options, 0)
    segments, chapters = [], []
    slide = 0
    for i, ((start, end), vector) in enumerate(zip(spans, vectors)):
        slide += int(rng.random() < 0.4)
        said = " ".join(rng.choice(sentences, size=2, replace=False)) + " " + \
            " ".join(_words(rng, 6))
        shown = f"{title} ({slide})\n{bullets[slide % len(bullets)]}\n" + " ".join(_words(rng, 3))
        s = SegmentRecord(i, start, end, 10 * i, 10 * i + 9, said, shown, slide,
                          segment_summary(said, shown), vector)
        chapters += roller.add(s)
        segments.append(s)
    chapters += roller.flush()
    return segments, chapters


def synthetic_library(library, hours: float, video_hours: float = 1.0, seed: int = 0,
                      model: VectorModel | None = None) -> Iterator[int]:
    """Add ``hours`` of synthetic videos (``video_hours`` each) to ``library`` through its
    merge path; yields the number of videos written so far, after each one."""
    rng = np.random.default_rng(seed)
    if model is None:
        model, _ = real_model(library.models.embedder, seed)
    n = max(1, round(hours / video_hours))
    for i in range(n):
        segments, chapters = synthetic_video(rng, model, video_hours * 3600.0, library.options)
        record = library.register(None, video_id=f"synthetic-{i:05d}",
                                  title=f"Synthetic lecture {i}", state="ready")
        library.merge_rows(record.video_id, segments, chapters, video_hours * 3600.0)
        yield i + 1
