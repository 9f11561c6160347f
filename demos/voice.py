"""The assistant's voice in the browser: each reply as a WAV in the assistant's own voice
(`venus.AssistantModels.voice`: Piper, or eSpeak NG without the ``voices`` extra).

Below the page feed (no Gradio). The session's own speech output keeps the timing; the
browser plays this file from the moment the session starts playing the reply.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["synthesize"]


def synthesize(text: str, path: Path, words_per_second: float) -> str | None:
    """``text`` as a 16 kHz WAV at ``path`` (None when it has no words)."""
    from memory.audio import write_wav
    from venus.factory import shared_models

    voice = shared_models().voice.synthesizer
    speech = voice.synthesize(text, rate=int(words_per_second * 60))
    if not len(speech.audio):
        return None
    write_wav(path, np.clip(speech.audio, -1, 1), speech.sample_rate)
    return str(path)
