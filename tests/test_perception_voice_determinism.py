"""The eSpeak voices that perception is tested on are deterministic: the same text gives
the same samples in every call, whatever was said before, and in every process (a fresh
process and the forked fallback are the reference: an engine that never spoke)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np

from memory.models import tts as tts_module
from memory.models.tts import EspeakSynthesizer

SENTENCES = (("What do leaves make from sunlight?", "en-us"), ("Mm-hmm.", "en-us+f2"),
             ("Wait, what do the roots do?", "en+m7"), ("Stop.", "en-gb-x-rp+f3"))


def _digest(audio: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(audio, np.float32).tobytes()).hexdigest()


def test_the_same_text_gives_the_same_samples_whatever_came_before():
    tts = EspeakSynthesizer()
    first = [tts.synthesize(t, voice=v) for t, v in SENTENCES]
    tts.synthesize("Something else entirely, said slowly.", rate=120)  # other history
    again = [tts.synthesize(t, voice=v) for t, v in reversed(SENTENCES)][::-1]
    for a, b in zip(first, again):
        assert np.array_equal(a.audio, b.audio)
        assert a.words == b.words


def test_a_fresh_process_gives_the_same_samples():
    tts = EspeakSynthesizer()
    tts.synthesize("Warm up with a different sentence.")
    here = [_digest(tts.synthesize(t, voice=v).audio) for t, v in SENTENCES]
    code = ("import hashlib, numpy as np; from memory.models.tts import EspeakSynthesizer; "
            f"t = EspeakSynthesizer(); S = {SENTENCES!r}; "
            "print(' '.join(hashlib.sha256(np.ascontiguousarray(t.synthesize(x, voice=v).audio, "
            "np.float32).tobytes()).hexdigest() for x, v in reversed(S)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out[::-1] == here


def test_the_in_process_reset_equals_an_engine_that_never_spoke():
    engine = tts_module._engine()
    assert engine.state is not None  # this build's symbol table names the statics
    forked = tts_module._ForkedEngine()  # the fallback: a child of a helper that never spoke
    try:
        for text, voice in SENTENCES:
            with tts_module._LOCK:
                engine.pristine = True
                pcm, events = engine.run(text, voice, 165, 50)
            ref_pcm, ref_events = forked.run(text, voice, 165, 50)
            assert np.array_equal(pcm, ref_pcm) and events == ref_events, text
    finally:
        forked.close()


def test_non_deterministic_mode_still_speaks():
    speech = EspeakSynthesizer(deterministic=False).synthesize("Hello there.")
    assert len(speech.audio) > 0.3 * 16_000 and [w.text for w in speech.words] == ["Hello", "there"]
