"""`UserPerception`: everything the frontend perceives of the live user, per chunk.

::

    perception = UserPerception(PerceptionConfig(assistant_name="Venus"))
    perception.set_context("today's lecture: photosynthesis")   # for the topical cue
    for chunk in source:                                         # one-second VideoChunks
        frame = perception.feed(chunk)
        if frame.onsets and frame.cues.other_directed: ...

The top of `venus.perception`: composes the streaming VAD (`memory.models.VADStream`),
the speech tracker, region transcription, prosody and loudness calibration, addressee
cues and the face detector. One object per live input; all streaming state lives in it
and in the parts it owns, and `reset` clears all of it.

Per chunk (``feed``): VAD over its audio, 32 ms at a time -> onset/offset events; a final
transcription job for every region that ended and (``partials``) a partial one for the
open region, run by the owned background ASR worker (`RegionTranscription`); the words
that became visible at this chunk (deterministic or live, see
`PerceptionConfig.deterministic`); the level, pitch and rate of this chunk's speech against
the user's calibrated level; cues about who the latest words are for; and, with video,
whether a face is turned toward the camera.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from memory.media import SAMPLE_RATE, VideoChunk, as_audio
from memory.models.base import TextEmbedder, Transcriber, Word
from venus.clock import perf_seconds
from venus.perception.addressee import TopicRelation, lexical_cues
from venus.perception.config import PerceptionConfig
from venus.perception.face import FaceDetector
from venus.perception.prosody import LoudnessCalibration, estimate_f0, rms_db, words_per_second
from venus.perception.speech import WINDOW_SECONDS, AudioWindow, SpeechTracker
from venus.perception.transcription import (
    AsrJob,
    AsrWorker,
    RegionTranscription,
    TranscriptionFailed,
)
from venus.perception.turn import EndOfTurnModel, TurnPrediction
from venus.perception.types import AddresseeCues, PerceptionFrame, Prosody, SpeechBoundary

if TYPE_CHECKING:
    from memory.models.vad import SileroSpeechDetector

__all__ = ["UserPerception"]

logger = logging.getLogger(__name__)

_IDLE_KEEP_S = 1.0  # audio kept while silent, so a retroactive onset still has its start
# Audio always kept: the word probe reads an overlap from its onset up to 1 s into it, and
# is submitted at the chunk end after that (at most 2 s after the onset), even when a new
# region has begun since.
_PROBE_KEEP_S = 2.5
_TURN_LEAD_S = 0.5  # audio before the region the end-of-turn model hears with it
TURN_SILENCE_S = 0.3  # silence the end-of-turn model hears after the turn (the offset's
# 0.25 s, confirmed at the end of a hop)


def _held_silence(audio: np.ndarray, silent_s: float) -> np.ndarray:
    """``audio`` ending in ``silent_s`` of silence, continued to `TURN_SILENCE_S` with its
    quietest 32 ms repeated (the room's own floor, not a speech sound's decaying tail):
    the turn as the end-of-turn model would hear it at the offset if the user stays
    quiet. Smart Turn reads a turn ending in 0.1-0.2 s of silence as unfinished far more
    often ("What does a catalyst do?" 0.36 there, 0.85 from 0.25 s on, Flite voice); if
    the user speaks again first, the verdict is dropped."""
    have = max(1, min(len(audio), round(silent_s * SAMPLE_RATE)))
    need = round(TURN_SILENCE_S * SAMPLE_RATE) - have
    if need <= 0:
        return audio
    tail = audio[-have:]
    n = min(len(tail), round(WINDOW_SECONDS * SAMPLE_RATE))
    windows = [tail[i:i + n] for i in range(0, len(tail) - n + 1, n)] or [tail]
    floor = min(windows, key=lambda w: float(np.mean(np.square(w, dtype=np.float64))))
    return np.concatenate([audio, np.resize(floor, need)])


@dataclass
class _Utterance:
    """The latest utterance: its words so far and how long it has lasted."""

    words: tuple[Word, ...] = ()
    duration: float = 0.0
    topic_similarity: float | None = None  # measured on the ASR worker


class UserPerception:
    """Streaming perception of the user: ``feed(chunk) -> PerceptionFrame``, ``reset()``.

    Chunks must be contiguous (each starts where the previous ended). Models load on
    first use unless given: ``detector`` a `memory.models.SileroSpeechDetector`,
    ``transcriber`` any `Transcriber`, ``embedder`` any `TextEmbedder` (only used once a
    context is set), ``face_detector`` a `FaceDetector` (``faces=False`` skips faces).
    Transcription runs on one background thread owned by this object: `close` it when
    done (a worker error is raised by the next `feed` as `TranscriptionFailed`).
    """

    def __init__(self, config: PerceptionConfig | None = None, *,
                 detector: SileroSpeechDetector | None = None,
                 transcriber: Transcriber | None = None, embedder: TextEmbedder | None = None,
                 face_detector: FaceDetector | None = None, faces: bool = True,
                 probe: Transcriber | None = None,
                 end_of_turn: EndOfTurnModel | None = None) -> None:
        self.config = config or PerceptionConfig()
        if detector is None:
            from memory.models import SileroSpeechDetector

            detector = SileroSpeechDetector()
        self._vad = detector.stream()
        self._tracker = SpeechTracker(self.config)
        c = self.config
        self._topic = TopicRelation(embedder)
        self._asr = RegionTranscription(transcriber, latency_s=c.asr_latency_s,
                                        deterministic=c.deterministic,
                                        max_pending=c.max_pending_asr,
                                        similarity=self._topic.similarity,
                                        short_context=c.short_context)
        self._faces = face_detector if face_detector is not None or not faces else FaceDetector(
            self.config.face_min_size, self.config.face_max_width)
        self.calibration = LoudnessCalibration(self.config.quieter_margin_db,
                                               self.config.calibration_horizon_s)
        self._audio = AudioWindow()
        self._probe = probe
        self.end_of_turn = end_of_turn  # None: every offset ends the turn
        self._probes: AsrWorker | None = None  # started on the first probe
        self._turns: ThreadPoolExecutor | None = None  # the end-of-turn model, heard early
        self.probed: deque[AsrJob] = deque(maxlen=10_000)  # finished probes (benchmarks)
        self.probe_waited_s = 0.0  # wall seconds blocked on due probes (deterministic)
        self.reset()

    # -- state ---------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the stream (VAD state, open region, audio); keep calibration and context."""
        self._vad.reset()
        self._tracker.reset()
        self._asr.reset()
        self._audio.reset()
        self._origin: float | None = None
        self._region_start = 0.0
        self._utterance = _Utterance()
        self._region_sq = 0.0  # sum of squares of the open region's speech windows
        self._region_n = 0
        self._region_id = 0
        self._region_starts: dict[int, float] = {}  # regions with words still to come
        self._shown: tuple[int, tuple[Word, ...]] = (0, ())  # newest visible partial
        self._partial_at: float | None = None  # media time of the last partial request
        # the open region's words transcribed early, in the silence before its offset:
        # (region, when that silence began, the job, the end-of-turn verdict to come)
        self._early: tuple[int, float, AsrJob, Future[TurnPrediction] | None] | None = None
        self._turn_open_until: float | None = None  # an unfinished turn waits until then
        self._turn_ends: list[float] = []  # offsets judged turn ends, not yet in a frame

    def close(self) -> None:
        """Stop the ASR workers (joins them after their current job); `feed` no longer works."""
        self._asr.close()
        if self._probes is not None:
            self._probes.close()
        if self._turns is not None:
            self._turns.shutdown(wait=True, cancel_futures=True)

    # -- the word probe: first words of speech that has only just begun --------------
    def probe(self, start: float, at: float) -> AsrJob:
        """Read the first words of the speech that began at media time ``start``, from its
        audio up to ``at`` (at most the end of the chunks fed so far), with the fast word
        probe (`venus.perception.probe.WhisperProbe`) on its own worker. The words are
        due ``probe_latency_s`` after ``at`` (`probe_words`)."""
        if at > self._audio.end + 1e-6:
            raise ValueError(f"cannot probe up to {at:.3f} s: audio is only in up to "
                             f"{self._audio.end:.3f} s")
        a_start, audio = self._audio.slice(start - self.config.asr_pad_s, at)
        job = AsrJob(0, self._region_id, "partial", np.array(audio, np.float32), a_start, at,
                     at + self.config.probe_latency_s)
        if self._probes is None:
            from venus.perception.probe import WhisperProbe

            self._probes = AsrWorker(self._probe or WhisperProbe(), name="venus-probe")
        self._probes.submit(job)
        return job

    def probe_words(self, job: AsrJob, now: float) -> tuple[Word, ...] | None:
        """The probe's words if they are visible at media time ``now``, else None: in
        deterministic mode once ``now`` reaches the job's due time (waiting for the
        worker then), live as soon as it has finished."""
        if self.config.deterministic:
            if job.due > now + 1e-6:
                return None
            if not job.done.is_set():
                began = perf_seconds()
                job.done.wait()
                self.probe_waited_s += perf_seconds() - began
        elif not job.done.is_set():
            return None
        if job.error is not None:
            raise TranscriptionFailed(f"the word probe failed: {job.error}") from job.error
        if job.visible_at is None:
            job.visible_at = now
            self.probed.append(job)
        return job.words

    @property
    def asr(self) -> RegionTranscription:
        """The transcription jobs and their worker (timings for benchmarks)."""
        return self._asr

    def set_context(self, texts: Sequence[str] | str | None) -> None:
        """What the conversation is about, for the topical cue (None clears it)."""
        self._topic.set_context(texts)

    @property
    def context(self) -> tuple[str, ...]:
        """The conversation context the topical cue compares speech with."""
        return self._topic.context

    def calibrate(self, audio: np.ndarray) -> float:
        """Set the user's level from a sample of them speaking; returns it in dBFS."""
        return self.calibration.calibrate(as_audio(audio))

    @property
    def speaking(self) -> bool:
        return self._tracker.speaking

    # -- per chunk -----------------------------------------------------------------
    def feed(self, chunk: VideoChunk) -> PerceptionFrame:
        audio = as_audio(chunk.audio)
        if self._origin is not None and abs(chunk.start - self._audio.end) > 0.5 / SAMPLE_RATE:
            # A gap or a jump (a resumed or seeked source): the stream state no longer
            # lines up with media time, so start the stream afresh at this chunk.
            logger.info("chunk %d starts at %.3f s, not %.3f s: restarting the stream",
                        chunk.index, chunk.start, self._audio.end)
            self.reset()
        if self._origin is None:
            self._origin = chunk.start - self._vad.position
        self._audio.append(chunk.start, audio)
        base = self._origin + self._vad.position  # start of the next 32 ms window
        probs = self._vad.feed(audio)
        self._asr.latency_s, self._asr.deterministic = (self.config.asr_latency_s,
                                                        self.config.deterministic)
        self._asr.latency_per_s = self.config.asr_latency_per_s
        self._asr.short_latency = (self.config.asr_short_latency_s,
                                   self.config.asr_short_latency_per_s)
        boundaries, speech = self._track(probs, base)
        self._transcribe_early()
        if self.config.partials:
            self.request_partial()
        finals = self._visible(chunk.end)
        self._trim()
        faces = self._count_faces(chunk)
        cues = self._cues()
        transcribing = self._asr.pending_final()
        turn_open = self._turn_open(chunk.end)
        if not self._tracker.speaking and not transcribing:  # the utterance is over
            self._utterance = _Utterance()
        return PerceptionFrame(
            chunk_index=chunk.index, start=chunk.start, end=chunk.end,
            speech_probability=max(probs, default=0.0), speaking=self._tracker.speaking,
            boundaries=tuple(boundaries), partial_words=self._shown[1],
            final_words=tuple(finals), transcribing=transcribing, turn_open=turn_open,
            turn_ends=self._take_turn_ends(),
            prosody=self._prosody(speech), cues=cues,
            faces=faces, face_toward_camera=None if faces is None else faces > 0)

    def _track(self, probs: list[float], base: float
               ) -> tuple[list[SpeechBoundary], list[np.ndarray]]:
        boundaries: list[SpeechBoundary] = []
        speech: list[np.ndarray] = []
        c = self.config
        for i, p in enumerate(probs):
            t = self._on_grid(base + i * WINDOW_SECONDS)
            event = self._tracker.update(p, t)
            if event is not None:
                boundaries.append(event)
                if event.kind == "offset":
                    self._finish(self._region_start, event.time)
                else:
                    self._open_region(event.time)
            if self._tracker.speaking and p >= c.offset_threshold:
                window = self._audio.slice(t, t + WINDOW_SECONDS)[1]
                speech.append(window)
                self._region_sq += float(np.sum(np.square(window, dtype=np.float64)))
                self._region_n += len(window)
            if self._tracker.speaking and t + WINDOW_SECONDS - self._region_start >= c.max_region_s:
                self._finish(self._region_start, t + WINDOW_SECONDS, closed=False)
                self._open_region(t + WINDOW_SECONDS)
                self._tracker.split(self._region_start)
        return boundaries, speech

    def _open_region(self, start: float) -> None:
        self._region_id += 1
        self._region_start = start
        self._region_starts[self._region_id] = start
        self._region_sq, self._region_n = 0.0, 0

    @staticmethod
    def _on_grid(t: float) -> float:
        return round(t, 6)  # window times on the 32 ms grid, free of float noise

    def _finish(self, start: float, end: float, closed: bool = True) -> None:
        pad = self.config.asr_pad_s
        early, self._early = self._early, None
        ours = closed and early is not None and early[:2] == (self._region_id, end)
        if closed:
            self._judge_turn(start, end, early[3] if ours else None)
        if not (ours and self._asr.promote(early[2], end)):
            a_start, audio = self._audio.slice(start - pad, end + (pad if closed else 0.0))
            # Submitted at the hop's end: that is when the audio exists in a live system.
            self._asr.submit(self._region_id, "final", audio, a_start, self._audio.end, end,
                             self._topic.context)
        if self._region_n:
            level = float(10.0 * np.log10(max(self._region_sq / self._region_n, 1e-10)))
            self.calibration.update(level, self._region_n / SAMPLE_RATE)
        self._region_sq, self._region_n = 0.0, 0

    def _transcribe_early(self) -> None:
        """The user has gone quiet (``early_final_after_s``) but the VAD has not confirmed
        the offset yet: transcribe the region so far, which then holds all its speech; if
        the offset follows with no speech since, these are its final words (`_finish`)."""
        after, since = self.config.early_final_after_s, self._tracker.silent_since
        if after is None or since is None or self._audio.end - since < after - 1e-9:
            return
        if self._early is not None and self._early[:2] == (self._region_id, since):
            return
        a_start, audio = self._audio.slice(self._region_start - self.config.asr_pad_s,
                                           self._audio.end)
        job = self._asr.submit(self._region_id, "partial", audio, a_start, self._audio.end,
                               since, self._topic.context)
        verdict = None
        if self.end_of_turn is not None:  # heard in the same silence, beside Whisper
            if self._turns is None:
                self._turns = ThreadPoolExecutor(1, thread_name_prefix="venus-turn")
            _, turn = self._audio.slice(self._region_start - _TURN_LEAD_S, self._audio.end)
            verdict = self._turns.submit(self.end_of_turn.predict,
                                         _held_silence(turn, self._audio.end - since))
        self._early = (self._region_id, since, job, verdict)

    def _judge_turn(self, start: float, end: float,
                    verdict: Future[TurnPrediction] | None = None) -> None:
        """At an offset, ask the end-of-turn model whether the user finished: if not, the
        turn stays open ``turn_wait_s`` for them to go on (`PerceptionFrame.turn_open`).
        ``verdict``: its answer on the same turn heard early, in the silence before the
        offset (`_transcribe_early`), so the offset's hop does not wait for the model."""
        self._turn_open_until = None
        if self.end_of_turn is None:
            return
        if verdict is not None:
            prediction = verdict.result()
        else:
            _, audio = self._audio.slice(start - _TURN_LEAD_S, self._audio.end)
            prediction = self.end_of_turn.predict(audio)
        if prediction.complete:
            self._turn_ends.append(end)
        else:
            self._turn_open_until = end + self.config.turn_wait_s

    def _take_turn_ends(self) -> tuple[float, ...]:
        ends, self._turn_ends = tuple(self._turn_ends), []
        return ends

    def _turn_open(self, now: float) -> bool:
        """An offset the end-of-turn model judged unfinished, still within its wait, and
        the user silent since (speech opens the next region, judged at its own offset)."""
        until = self._turn_open_until
        if until is not None and now >= until - 1e-9:
            self._turn_open_until = until = None
        return until is not None and not self._tracker.speaking

    def request_partial(self) -> None:
        """Submit the open region's audio so far for partial words (once the region's
        previous partial is visible; they become visible like any result). No-op while the user is silent or
        the region is younger than ``min_partial_s``."""
        if (not self._tracker.speaking or self._partial_at == self._audio.end
                or self._audio.end - self._region_start < self.config.min_partial_s
                or self._asr.pending_partial(self._region_id)):
            return  # one partial at a time: a newer one would only supersede it unseen
        self._partial_at = self._audio.end
        a_start, audio = self._audio.slice(self._region_start - self.config.asr_pad_s,
                                           self._audio.end)
        self._asr.submit(self._region_id, "partial", audio, a_start, self._audio.end,
                         self._audio.end, self._topic.context)

    def _visible(self, now: float) -> list[Word]:
        """Apply the transcription results visible at ``now``; the final words among them."""
        finals: list[Word] = []
        for job in self._asr.collect(now):
            self._apply(job, finals)
        return finals

    def _apply(self, job: AsrJob, finals: list[Word]) -> None:
        start = self._region_starts.get(job.region, job.start)
        end = job.speech_end if job.speech_end is not None else job.submitted
        if job.kind == "final":
            self._region_starts.pop(job.region, None)
            finals.extend(job.words)
            if self._shown[0] == job.region:
                self._shown = (0, ())
            self._utterance = _Utterance(job.words, end - start, job.topic_similarity)
        elif job.words and job.region in self._region_starts:
            # (a region too young for words keeps the cues of the one before it; a partial
            # seen after its region's final words is stale: shown, it stayed the partial
            # words of every region after it too short for a partial of its own)
            self._shown = (job.region, job.words)
            self._utterance = _Utterance(job.words, end - start, job.topic_similarity)

    def _trim(self) -> None:
        keep = (self._region_start - self.config.asr_pad_s if self._tracker.speaking
                else self._audio.end - _IDLE_KEEP_S)
        self._audio.trim_before(min(keep, self._audio.end - _PROBE_KEEP_S))

    def _prosody(self, speech: list[np.ndarray]) -> Prosody:
        if not speech:
            return Prosody()
        audio = np.concatenate(speech)
        level = rms_db(audio)
        c = self.config
        relative = self.calibration.relative(level)
        f0 = estimate_f0(audio, c.pitch_min_hz, c.pitch_max_hz, c.voicing_threshold)
        return Prosody(rms_db=float(level), relative_db=None if relative is None else float(relative),
                       quieter=bool(self.calibration.is_quieter(level)),
                       f0_hz=None if f0 is None else float(f0),
                       words_per_s=words_per_second(self._utterance.words))

    def _cues(self) -> AddresseeCues:
        u = self._utterance
        text = " ".join(w.text for w in u.words).strip()
        if not text:
            return AddresseeCues()
        cues = lexical_cues(text, u.duration, self.config)
        sim = u.topic_similarity  # measured with the words, on the ASR worker
        if sim is None:
            return cues
        return replace(cues, topic_similarity=sim, on_topic=sim >= self.config.topic_threshold)

    def _count_faces(self, chunk: VideoChunk) -> int | None:
        if self._faces is None or not chunk.frames:
            return None
        return len(self._faces.detect(chunk.frames[-1].image))
