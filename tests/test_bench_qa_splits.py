"""The answer benchmark's splits are exactly the ones every figure was measured on.

The splits moved from Python literals inside `memory.benchmarks` to data files; these
digests were taken from the literals before the move (with `fingerprint` below), so the
move, and any later edit of a split file, fails here unless it keeps every field: the
topics (titles, slide bullets, narration), each topic's questions and accepted keys, the
off-topic questions, seed and voice, the lecture script the seed draws (slide order and
durations) and the questions with their times on a fixed stand-in timeline. Digests, not
a copy: the held-out split is kept nowhere but in its own file.

A split is frozen once figures were reported on it; a changed split is a new split (a new
name and seed), and its digests are added here.
"""

from __future__ import annotations

import hashlib

import pytest
from test_bench_qa import _truth

from memory.benchmarks.qa import SPLITS, qa_script, questions
from memory.benchmarks.qa_splits import _Splits

DIGESTS = {
    "dev": {
        "plan": "2be95980df2bf311", "topics": "879e1b4fca73d55d", "qa": "cba9aa95104f2905",
        "off_topic": "13e239050c642f37", "script": "0c3be952c4c5b100",
        "questions": "153407150d113407"
    },
    "dev2": {
        "plan": "94206509be6bf2fe", "topics": "7459ad99d4beed27", "qa": "2a02d26d2ddee980",
        "off_topic": "c2b2c3dc2bd36147", "script": "0a1739e057a86af4",
        "questions": "d78d010683940d45"
    },
    "dev3": {
        "plan": "bccfeb34544607b0", "topics": "bc8c4e3190ca294c", "qa": "9c798394f02c9c7e",
        "off_topic": "eab618abbb2546a5", "script": "bae8d81e7cb12f95",
        "questions": "2938e9ede2aeeb26"
    },
    "dev4": {
        "plan": "ec11fdb56b829af1", "topics": "08ad1c816efd6bc3", "qa": "cf35b2c00b50f0b1",
        "off_topic": "a76347105393a4df", "script": "f919f69040828701",
        "questions": "1ae85128e6f275fe"
    },
    "dev5": {
        "plan": "3484a7fac5bb0005", "topics": "257e86c57c1a63ed", "qa": "826953eb1ed317ae",
        "off_topic": "78ec2b274f758e05", "script": "fedc220412f1c096",
        "questions": "75a6c9aae7d4f1b5"
    },
    "held-out": {
        "plan": "a702799b79f26c6d", "topics": "91c8c09a8b970bcc", "qa": "6d53c33b39cd1fd1",
        "off_topic": "d0c09462e18dcde2", "script": "fcc264c7f291a9dc",
        "questions": "148a1ae2c1521f41"
    },
    "tuning": {
        "plan": "89260b8e4d097ba1", "topics": "868568651ef49cdc", "qa": "522c3192f1892050",
        "off_topic": "207be5dffb6c9fd0", "script": "4c89a6530e3d3479",
        "questions": "0f9b91eaa955ada5"
    },
}


def fingerprint(split) -> dict[str, str]:
    """A short sha256 of the ``repr`` of each part of a split as the benchmark loads it."""
    parts = {
        "plan": (split.name, split.seed, split.voice),
        "topics": split.topics,
        "qa": split.qa,
        "off_topic": split.off_topic,
        "script": qa_script(split),
        "questions": questions(split, _truth(split)),
    }
    return {part: hashlib.sha256(repr(value).encode()).hexdigest()[:16]
            for part, value in parts.items()}


def test_every_split_has_its_digests():
    assert sorted(SPLITS) == sorted(DIGESTS)


@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_a_split_loads_exactly_what_was_measured_on(name):
    assert fingerprint(SPLITS[name]) == DIGESTS[name]


def test_one_changed_key_changes_the_digest():
    import dataclasses

    split = SPLITS["tuning"]
    title, qa = next(iter(split.qa.items()))
    spoken = (qa.spoken[0], (*qa.spoken[1], "another phrase"))
    changed = dataclasses.replace(split, qa={**split.qa, title: dataclasses.replace(
        qa, spoken=spoken)})
    before, after = fingerprint(split), fingerprint(changed)
    assert [p for p in before if before[p] != after[p]] == ["qa", "questions"]


def test_running_one_split_reads_no_other_split_file():
    """The held-out file is opened only when held-out itself is asked for."""
    splits = _Splits()
    assert "held-out" in splits and "dev" in splits
    assert splits["dev"].seed == 4242
    assert list(splits._loaded) == ["dev"]
