"""The assistant's voice in the app: which one (``venus app --voice``), and each reply as a
WAV for pages without the audio socket.

Below the page feed (no Gradio). `app_models` gives the models a tab's conversation
speaks and listens with: the shared ones (`venus.factory.shared_models`), speaking with
Piper ``en_US-joe-medium`` when the ``voices`` extra is installed (``auto``, the default),
or with the voice asked for. The session's own speech output keeps the timing and
streams the reply to the page (`demos.playout`, `demos.wire`); `synthesize` is the
fallback for a frontend with no voice of its own (text playout): the browser plays this
file from the moment the session starts playing the reply.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from venus.errors import ConfigError

__all__ = ["VOICES", "app_models", "synthesize"]

VOICES = ("auto", "piper", "espeak")


@cache
def app_models(voice: str = "auto"):
    """The shared `venus.factory.AssistantModels`, speaking with ``voice``."""
    from venus.factory import shared_models
    from venus.speech.synthesis import espeak_voice, piper_missing, piper_voice

    models = shared_models()
    if voice == "auto":
        return models
    if voice == "espeak":
        return models.with_voice(espeak_voice("asked for with --voice espeak"))
    if voice == "piper":
        why = piper_missing()
        if why is not None:
            raise ConfigError(f"--voice piper: {why}; pip install 'realtime-venus[voices]', "
                              f"or use --voice espeak")
        return models.with_voice(piper_voice("asked for with --voice piper"))
    raise ConfigError(f"unknown voice {voice!r}; choose from {', '.join(VOICES)}")


def synthesize(text: str, path: Path, words_per_second: float, voice: str = "auto"
               ) -> str | None:
    """``text`` as a 16 kHz WAV at ``path`` (None when it has no words)."""
    from memory.audio import write_wav

    synthesizer = app_models(voice).voice.synthesizer
    speech = synthesizer.synthesize(text, rate=int(words_per_second * 60))
    if not len(speech.audio):
        return None
    write_wav(path, np.clip(speech.audio, -1, 1), speech.sample_rate)
    return str(path)
