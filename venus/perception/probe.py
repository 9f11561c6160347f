"""`WhisperProbe`: the first words of a stretch of speech that has only just begun.

Behaviour layer of `venus.perception` (beside ``transcription``). A full Whisper pass
always encodes a 30-second window, ~0.8 s for Whisper tiny.en on this machine's CPU even
for half a second of speech, so the words of an overlap arrive long after the moment
the assistant must decide whether to stop. The probe runs the same model (the live
user's Whisper tiny.en, CTranslate2) with its audio context cut to the clip: the encoder
sees ``context_s`` of mel frames instead of 30 s (the trick whisper.cpp exposes as
``audio_ctx``), then a few greedy tokens. Measured here: ~20 ms encoding and ~30 ms
decoding, 50 ms p50 / 85-120 ms p95 per probe under load, and on eSpeak voices it reads
an opener ("wait", "sorry", "hold on", "stop", "okay", "I see") from the first 0.4 s
reliably, while names at the start of a remark are mostly misheard (so the probe is used
to *stop* early, never to decide that speech is for someone else; the full
transcription still follows on the ASR worker).

It is a `memory.models.Transcriber` (its words all span the clip), so it runs on an
`venus.perception.transcription.AsrWorker` of its own, never behind the full passes.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from memory.media import SAMPLE_RATE, as_audio
from memory.models.base import Transcript, TranscriptSegment, Word

__all__ = ["WhisperProbe"]

_HOP = 160  # samples per mel frame (10 ms)


class WhisperProbe:
    """First words of a short clip (see the module docstring).

    ``model_path``: a CTranslate2 Whisper directory (default: the embedded tiny.en);
    ``context_s``: the audio context the encoder sees (clips are cut or padded to it);
    ``max_tokens``: how many tokens to decode.
    """

    def __init__(self, model_path: str | Path | None = None, *, context_s: float = 2.0,
                 max_tokens: int = 8, threads: int = 0) -> None:
        self.model_path = model_path
        self.context_s = context_s
        self.max_tokens = max_tokens
        self.threads = threads or min(2, os.cpu_count() or 1)
        self._loaded: tuple | None = None
        self._lock = threading.Lock()

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        """The probe's words, each spanning the clip (the probe has no word timings)."""
        text = self.first_words(audio)
        if not text:
            return Transcript()
        end = offset + len(audio) / SAMPLE_RATE
        words = tuple(Word(w, offset, end) for w in text.split())
        return Transcript((TranscriptSegment(text, offset, end, words),))

    def first_words(self, audio: np.ndarray) -> str:
        """What the clip's first words were, as text ("" when none were heard)."""
        import ctranslate2

        model, tokenizer, features = self._model()
        frames = max(1, round(self.context_s * SAMPLE_RATE / _HOP))
        clip = np.zeros(frames * _HOP, np.float32)
        audio = as_audio(audio)[:len(clip)]
        clip[:len(audio)] = audio
        mel = features(clip)[:, :frames]
        batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None], np.float32))
        with self._lock:  # one CTranslate2 call at a time on this model
            result = model.generate(batch, [[tokenizer.sot, tokenizer.no_timestamps]],
                                    beam_size=1, max_length=self.max_tokens,
                                    no_repeat_ngram_size=2, suppress_blank=True)
        return tokenizer.decode(result[0].sequences_ids[0]).strip()

    def _model(self):
        if self._loaded is None:
            self._loaded = _load(self.model_path, self.threads)
        return self._loaded


def _load(model_path: str | Path | None, threads: int):
    import ctranslate2
    import tokenizers
    from faster_whisper.feature_extractor import FeatureExtractor
    from faster_whisper.tokenizer import Tokenizer

    from memory.models.asr import default_whisper_path

    path = Path(model_path) if model_path else default_whisper_path()
    model = ctranslate2.models.Whisper(str(path), device="cpu", compute_type="int8",
                                       intra_threads=threads)
    tokenizer = Tokenizer(tokenizers.Tokenizer.from_file(str(path / "tokenizer.json")),
                          multilingual=model.is_multilingual, task="transcribe", language="en")
    return model, tokenizer, FeatureExtractor(feature_size=model.n_mels)
