"""Options of live user perception: every threshold in one typed, documented place.

The bottom of `venus.perception`: plain data, imported by every other module here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PerceptionConfig"]


@dataclass(frozen=True)
class PerceptionConfig:
    """Thresholds of `UserPerception`; the defaults suit a close-talking user at 16 kHz.

    Speech boundaries (Silero probabilities, one per 32 ms window):
      ``onset_threshold``  probability that starts speech, held for ``onset_windows``
                           consecutive windows (2 = 64 ms: one loud click is not speech);
                           the onset time is the start of the first of those windows.
      ``offset_threshold`` probability below which a window counts as silence (lower than
                           the onset: hysteresis, so a word's quiet tail does not end speech).
      ``offset_silence_s`` silence that must last before the offset is confirmed; the
                           offset time is where that silence began (so it is reported
                           ``offset_silence_s`` late, but timed right).
    Transcription:
      ``partials``         re-transcribe the growing region (at most once per chunk) to
                           give partial words while the user speaks.
      ``min_partial_s``    speech a region needs before partial words are worth asking
                           for (Whisper on a fraction of a word guesses wrong words that
                           would mislead the overlap classifier).
      ``asr_pad_s``        audio kept before the onset and after the offset for ASR.
      ``max_region_s``     a region this long is finalised and a new one starts (bounds
                           the cost of re-transcribing a monologue).
      ``deterministic``    when words become visible (ASR runs on a background worker,
                           never on the decision path). True (simulated time: tests,
                           evaluation, replay): a result is due at the first chunk boundary
                           ``asr_latency_s`` or more after it was submitted, and the chunk
                           waits for it there, so every run gives the same frames. False
                           (live, wall clock): a chunk uses whatever words are ready and
                           never waits. `venus.scenario.run_scenario` sets it from its clock.
      ``asr_latency_s``, ``asr_latency_per_s``: that delay, a fixed part plus a part per
                           second of audio transcribed: Whisper tiny.en (CTranslate2)
                           fitted on this 2-core CPU (min of 5 runs, 0.5-6 s of speech,
                           measured under load: 0.41 s + 0.048 s per second), so a replay
                           stays deterministic and its timing stays honest.
      ``short_context``    transcribe the user's clips of up to 12 s with Whisper's
                           audio context cut to the clip (`memory.models.whisper_short`:
                           ~50 ms for a spoken question instead of ~300 ms; the same words
                           on the tuning voices, WER 0.098 against the full pass's 0.101)
                           when the transcriber offers it; the full pass otherwise.
      ``asr_short_latency_s``, ``asr_short_latency_per_s``: the deterministic delay of
                           those clips, fitted like the full pass's (median of 5 runs,
                           0.4-7 s of speech, two CPU-bound processes beside it: 0.079 s
                           + 0.037 s per second; quiet: 0.015 s + 0.015 s per second).
      ``early_final_after_s`` once the user has been silent this long (before the VAD
                           confirms the offset), the region so far is transcribed; when
                           the offset comes with no speech since, those words are the
                           region's final words (no second Whisper pass). None: off.
      ``turn_wait_s``      after an offset the end-of-turn model (`venus.perception.turn`)
                           judges unfinished ("What is the capital of the"), the turn is
                           held open this long for the user to go on.
      ``max_pending_asr``  jobs the worker may be behind before the submitter waits.
      ``probe_latency_s``  how long the word probe (`venus.perception.probe`, the first
                           words of speech that has just begun) takes in deterministic
                           mode: its words are shown exactly this long after the audio
                           they read ends. Measured here at 50 ms p50 / 85-120 ms p95 per
                           probe under load (`venus bench frontend` prints it).
    Loudness:
      ``quieter_margin_db`` speech this many dB below the user's calibrated level is
                           flagged ``quieter`` (background talkers, a TV, someone farther).
      ``calibration_horizon_s`` seconds of speech the running level averages over, so it
                           follows the user moving but one loud cough does not reset it.
    Addressee cues:
      ``assistant_name``, ``wake_phrases``: words that address the assistant directly.
      ``other_names``      names of other people present (a vocative like "John, ..." is
                           found without it; listing names also catches them mid-sentence).
      ``backchannel_max_words`` / ``backchannel_max_s``: a backchannel is short.
      ``topic_threshold``  MiniLM cosine at or above which speech is "on topic".
    Pitch: ``pitch_min_hz`` .. ``pitch_max_hz`` bound the autocorrelation F0 search;
      ``voicing_threshold`` is the normalised autocorrelation peak that counts as voiced.
    Face: ``face_min_size`` is the smallest face side as a fraction of the frame's
      shorter side (a face in a crowd at the back is not someone facing the camera);
      ``face_max_width`` downscales frames before detection (speed).
    """

    onset_threshold: float = 0.5
    offset_threshold: float = 0.35
    onset_windows: int = 2
    offset_silence_s: float = 0.25
    partials: bool = True
    min_partial_s: float = 0.8
    asr_pad_s: float = 0.15
    max_region_s: float = 15.0
    deterministic: bool = True
    asr_latency_s: float = 0.41
    asr_latency_per_s: float = 0.048
    short_context: bool = True
    asr_short_latency_s: float = 0.10
    asr_short_latency_per_s: float = 0.037
    early_final_after_s: float | None = 0.1
    turn_wait_s: float = 1.2
    max_pending_asr: int = 4
    probe_latency_s: float = 0.15
    quieter_margin_db: float = 8.0
    calibration_horizon_s: float = 30.0
    assistant_name: str = "Venus"
    wake_phrases: tuple[str, ...] = ("hey venus", "ok venus", "okay venus")
    other_names: tuple[str, ...] = ()
    backchannel_max_words: int = 3
    backchannel_max_s: float = 1.5
    topic_threshold: float = 0.3
    pitch_min_hz: float = 60.0
    pitch_max_hz: float = 400.0
    voicing_threshold: float = 0.45
    face_min_size: float = 0.12
    face_max_width: int = 480

    def __post_init__(self) -> None:
        from venus.errors import ConfigError

        if not 0.0 < self.offset_threshold <= self.onset_threshold < 1.0:
            raise ConfigError(
                f"need 0 < offset_threshold <= onset_threshold < 1, got "
                f"{self.offset_threshold} and {self.onset_threshold}")
        if self.onset_windows < 1:
            raise ConfigError(f"onset_windows must be at least 1, got {self.onset_windows}")
        if min(self.asr_latency_s, self.asr_latency_per_s, self.asr_short_latency_s,
               self.asr_short_latency_per_s) < 0.0:
            raise ConfigError(f"the ASR latencies must be 0 or more, got asr_latency_s="
                              f"{self.asr_latency_s}, asr_latency_per_s="
                              f"{self.asr_latency_per_s}, asr_short_latency_s="
                              f"{self.asr_short_latency_s}, asr_short_latency_per_s="
                              f"{self.asr_short_latency_per_s}")
        if not 0.0 < self.pitch_min_hz < self.pitch_max_hz:
            raise ConfigError("need 0 < pitch_min_hz < pitch_max_hz")
