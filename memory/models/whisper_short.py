"""Whisper on a short clip with its audio context cut to the clip: a user's question in
~50 ms instead of ~350 ms.

Model layer (beside ``asr``). Whisper's encoder always sees a 30-second window, so even a
two-second question costs a full encoder pass (~0.3 s for tiny.en on a 2-core CPU, most
of the time between the end of a question and its words). CTranslate2's Whisper accepts
fewer mel frames (the trick whisper.cpp exposes as ``audio_ctx``): the clip plus
``MARGIN_S`` of silence is encoded, then decoded with timestamp tokens. Cut short, Whisper
rarely ends with its end-of-text token; it closes the clip's segment with a timestamp and
then says it all again (or says it again without closing it), so decoding keeps segments
up to the first one that repeats an earlier one or starts after the audio, and a segment
that repeats itself is cut after its first saying. Word times come from the same cross-attention
alignment as the full pass (``find_alignment``).

Measured on this machine's CPU (2 cores, quiet) on the bench's spoken questions: 35-80 ms
for 1.6-4.8 s clips where the full pass takes 290-390 ms, the same words on all but a
few (see ``venus bench turns``'s closing note). Clips longer than ``MAX_CLIP_S``, and any
clip whose decode looks wrong or holds no words (no closing timestamp, Whisper's own
no-speech rule, nothing kept), return None: the caller runs the full pass. A short pass
never says "no words" on its own: cut short, Whisper's no-speech rule also fires on
speech.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from memory.media import SAMPLE_RATE, as_audio
from memory.models.base import Transcript, TranscriptSegment, Word

__all__ = ["MARGIN_S", "MAX_CLIP_S", "short_context_transcript"]

MARGIN_S = 1.5     # silence after the clip in the encoder's context (0.5 s: repeats more)
MAX_CLIP_S = 12.0  # longer clips take the full pass
_HOP = 160         # samples per mel frame
_NO_SPEECH = 0.6   # Whisper's own no-speech rule, as in the full pass
_UNSURE = -1.0


def short_context_transcript(model: Any, audio: np.ndarray, offset: float = 0.0
                             ) -> Transcript | None:
    """The clip's words with the encoder's context cut to it, or None when the full pass
    should run (too long, or the decode does not close its segment).

    ``model``: a loaded ``faster_whisper.WhisperModel`` (English or multilingual with
    English forced)."""
    import ctranslate2
    from faster_whisper.tokenizer import Tokenizer

    audio = as_audio(audio)
    duration = len(audio) / SAMPLE_RATE
    if duration == 0.0 or duration > MAX_CLIP_S:
        return None
    frames = 2 * int(np.ceil((duration + MARGIN_S) * 100 / 2))  # even: the encoder strides 2
    clip = np.zeros(frames * _HOP, np.float32)
    clip[:len(audio)] = audio
    mel = model.feature_extractor(clip)[:, :frames]
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual,
                          task="transcribe", language="en")
    encoded = model.model.encode(
        ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None], np.float32)),
        to_cpu=False)
    result = model.model.generate(
        encoded, [list(tokenizer.sot_sequence)], beam_size=1,
        max_length=int(12 + 8 * duration), suppress_blank=True, return_scores=True,
        return_no_speech_prob=True)[0]
    if result.no_speech_prob > _NO_SPEECH and result.scores[0] < _UNSURE:
        # Cut short, Whisper also calls speech "no speech" ("Um, why are leaves green?"
        # in eSpeak's en+m3: nothing here, "um why not leave the screen" in the full
        # pass): a clip the VAD heard speech in loses its words only by the full pass.
        return None
    tokens = _kept(result.sequences_ids[0], tokenizer.timestamp_begin, duration, tokenizer)
    if not tokens:  # never closed, or nothing kept: the full pass decides
        return None
    aligned = model.find_alignment(tokenizer, [tokens], encoded, frames // 2)[0]
    words = []
    for w in aligned:
        text = w["word"]
        if not text.strip():
            continue
        start = min(max(0.0, float(w["start"])), duration)
        end = min(max(start, float(w["end"])), duration)
        words.append(Word(text, offset + start, offset + end, float(w["probability"])))
    _merge_punctuation(words)
    if not words:
        return None
    text = tokenizer.decode(tokens).strip()
    return Transcript((TranscriptSegment(text, words[0].start, words[-1].end, tuple(words)),))


def _kept(ids: list[int], timestamp_begin: int, duration: float, tokenizer: Any
          ) -> list[int] | None:
    """The text tokens of the segments worth keeping (see the module docstring); None when
    the first segment never closes."""
    segments: list[tuple[float, list[int], bool]] = []  # (start s, text tokens, closed)
    start, text = None, []
    for t in ids:
        if t >= timestamp_begin:
            at = (t - timestamp_begin) * 0.02
            if start is None:
                start, text = at, []
            else:
                segments.append((start, text, True))
                start = None
        elif start is not None:
            text.append(t)
    if start is not None and text:
        once = _said_once(text, tokenizer)
        segments.append((start, once or text, once is not None))
    kept: list[int] = []
    seen: list[str] = []
    for i, (begun, text, closed) in enumerate(segments):
        said = _normal(tokenizer.decode(text))
        if i == 0 and not closed:
            return None
        if not closed or begun >= duration - 0.2 or not said:
            break
        if any(s.startswith(said) or said.startswith(s) for s in seen):
            break  # said again: Whisper repeating itself past the clip's end
        seen.append(said)
        kept += text
    return kept


def _said_once(tokens: list[int], tokenizer: Any) -> list[int] | None:
    """An unclosed segment that says its first words again ("who discovered the nucleus.
    who discovered the nucleus. who ..."): the tokens of the first saying, else None."""
    words = tokenizer.decode(tokens).split()
    plain = [_normal(w) for w in words]
    for n in range(2, len(words) // 2 + 1):
        if plain[n:2 * n] == plain[:n]:
            return tokenizer.encode(" " + " ".join(words[:n]))
    return None


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()


def _merge_punctuation(words: list[Word]) -> None:
    """Punctuation aligned as a word of its own joins the word before it."""
    i = 1
    while i < len(words):
        if not re.search(r"[A-Za-z0-9]", words[i].text):
            prev = words[i - 1]
            words[i - 1] = Word(prev.text + words[i].text.strip(), prev.start, words[i].end,
                                prev.probability)
            del words[i]
        else:
            i += 1
