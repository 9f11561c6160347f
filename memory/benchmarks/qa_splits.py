"""The splits of the answer benchmark, read from their data files.

Part of the benchmarks layer (`memory.benchmarks.qa` asks the questions and scores the
replies); nothing in the memory itself reads these. Each split is one JSON file in
``memory/benchmarks/data/qa/`` (package data, so ``venus bench qa`` runs from an
installed wheel), named by the split, holding its seed, voice, lecture title and, per
topic, the slide bullets and narration and three questions with the phrases a reader
would accept (any one of them, compared after `memory.benchmarks.qa.normalize`):

- ``spoken``: a fact only *said* in the narration;
- ``slide``: a ``line`` added to the slide and never said, and the question about it;
- ``content``: the topic's ordinary question (said, often also shown).

``off_topic`` lists questions about nothing the split's lecture holds. The tuning split
(``"sample_lecture": true``) takes its slides and narration from the sample lecture's own
topics (`memory.samples.topics.TOPICS`) instead of repeating them. A split is read the
first time it is asked for, so the held-out split is read only when it is run (or
checked): nothing that runs another split opens its file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from memory.samples.topics import TOPICS

__all__ = ["SPLITS", "Split", "TopicQA", "load_split"]

Accept = tuple[str, ...]
Topic = tuple[str, tuple[str, ...], tuple[str, ...]]  # (title, bullets, narration)


@dataclass(frozen=True)
class TopicQA:
    """The questions about one topic (see the module docstring)."""

    spoken: tuple[str, Accept]
    slide: tuple[str, str, Accept]  # (line added to the slide, question, accepted)
    content: tuple[str, Accept]


@dataclass(frozen=True)
class Split:
    """A topic set, its questions, the seed of its slide order and its voice."""

    name: str
    topics: tuple[Topic, ...]
    qa: dict[str, TopicQA]
    off_topic: tuple[str, ...]
    seed: int
    voice: str  # "<family>:<voice>", family espeak, piper or flite
    title: str = "Ideas That Shaped the World"  # the lecture's title slide
    about: str = ""  # what the split is and how it was written


def _folder() -> Any:
    return resources.files("memory.benchmarks").joinpath("data", "qa")


def _topic(entry: dict[str, Any], sample: dict[str, Topic]) -> tuple[Topic, TopicQA]:
    title = entry["title"]
    topic = sample[title] if sample else \
        (title, tuple(entry["bullets"]), tuple(entry["narration"]))
    spoken, slide, content = entry["spoken"], entry["slide"], entry["content"]
    qa = TopicQA((spoken["question"], tuple(spoken["accept"])),
                 (slide["line"], slide["question"], tuple(slide["accept"])),
                 (content["question"], tuple(content["accept"])))
    return topic, qa


def load_split(name: str) -> Split:
    """Read the split ``name`` from its file (``data/qa/<name>.json``)."""
    path = _folder().joinpath(f"{name}.json")
    if not path.is_file():
        raise KeyError(f"no qa split {name!r}; the splits are {', '.join(SPLITS)}")
    data = json.loads(path.read_text(encoding="utf-8"))
    sample: dict[str, Topic] = {}
    if data.get("sample_lecture"):
        sample = {t[0]: t for t in TOPICS}
    topics, qa = zip(*(_topic(e, sample) for e in data["topics"]))
    return Split(data["name"], tuple(topics), {t[0]: q for t, q in zip(topics, qa)},
                 tuple(data["off_topic"]), int(data["seed"]), data["voice"], data["title"],
                 data.get("about", ""))


class _Splits(Mapping[str, Split]):
    """Every split by name (the files present), each read on first use and kept."""

    def __init__(self) -> None:
        self._loaded: dict[str, Split] = {}

    def _names(self) -> list[str]:
        return sorted(p.name[:-len(".json")] for p in _folder().iterdir()
                      if p.name.endswith(".json"))

    def __getitem__(self, name: str) -> Split:
        if name not in self._loaded:
            self._loaded[name] = load_split(name)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name: object) -> bool:
        return name in self._names()


SPLITS: Mapping[str, Split] = _Splits()
