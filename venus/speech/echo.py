"""Echo control: remove the assistant's own voice from the microphone input.

Behaviour layer of `venus.speech`, numpy only. The speech output keeps the played signal
(`AudioSpeechOutput.preview` / ``rendered``), which is the *reference*: whatever of it
reaches the microphone is echo, never the user. `EchoCanceller.cancel` finds the echo
path's delay (cross-correlation over ``max_delay_s``) and a short filter around it (least
squares over ``taps`` samples: the gain, and the fraction of a sample a page playing at
48 kHz puts the echo off the reference's grid, which one gain at the nearest sample left
only 7-10 dB down) per chunk, subtracts the filtered reference, and then suppresses
every 32 ms window whose residual is far below the echo that was in it (``suppress_db``):
what is left there is cancellation error, not a person. Speech of the user over the
echo (double talk) is uncorrelated with the reference, so it survives both steps. The
path is only *learnt* from stretches where the reference clearly explains the microphone
(correlation at least ``learn_correlation``) and held during double talk, the classic
double-talk guard: a
chunk where the user talks over the assistant must not teach the canceller that the
echo is weaker (or, with no echo at all, inject a copy of the reference).

This is a linear, per-chunk canceller: exact for the simulated room (a delayed, scaled
copy, plus noise) and a page's loopback, and a reasonable first stage for a laptop
speaker and microphone; a reverberant room needs a long adaptive filter (e.g. WebRTC AEC)
in front of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memory.media import SAMPLE_RATE

__all__ = ["EchoCanceller", "EchoEstimate", "EchoOptions"]

_WINDOW = 512  # 32 ms, the VAD's window
_SILENT = 1e-4  # a reference sample this small is silence
_RECENT_S = 0.3  # the last stretch of the context a moved path is also looked for in
_RECENT_CORRELATION = 0.9  # ... and how closely the reference must explain it there


@dataclass(frozen=True)
class EchoOptions:
    """``max_delay_s``: longest echo path searched; ``context_s``: the input the path is
    learnt over and windows are judged in (the runtime hears hops of a tenth of a second:
    the hop and what came just before it); ``suppress_db``: a window whose
    residual is this far below its echo is silenced; ``min_reference_db``: a reference
    quieter than this (dBFS) is treated as silence (nothing to cancel)."""

    max_delay_s: float = 0.12
    context_s: float = 1.0
    suppress_db: float = -20.0
    min_reference_db: float = -60.0
    max_gain: float = 4.0
    learn_correlation: float = 0.6
    taps: int = 8


@dataclass(frozen=True)
class EchoEstimate:
    delay_s: float
    gain: float
    echo_db: float  # level of the echo that was removed (dBFS); -inf when none


class EchoCanceller:
    """Subtracts the played reference from the microphone signal, chunk by chunk."""

    def __init__(self, options: EchoOptions | None = None) -> None:
        self.options = options or EchoOptions()
        self.last = EchoEstimate(0.0, 0.0, float("-inf"))
        self.path: tuple[int, np.ndarray] | None = None  # learnt (delay samples, filter)
        self._mic = np.zeros(0, np.float32)  # the input just before the next call
        self._ref = np.zeros(0, np.float64)  # its reference, with history in front

    def reset(self) -> None:
        self.path = None
        self.last = EchoEstimate(0.0, 0.0, float("-inf"))
        self._mic, self._ref = np.zeros(0, np.float32), np.zeros(0, np.float64)

    @property
    def history_samples(self) -> int:
        """Reference samples needed before the chunk: ``reference`` is this much longer."""
        return round(self.options.max_delay_s * SAMPLE_RATE)

    def cancel(self, mic: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """``mic`` without the echo of ``reference``, which covers the same span plus
        `history_samples` before it."""
        mic = np.asarray(mic, np.float32)
        d_max = self.history_samples
        n = len(mic)
        if len(reference) != n + d_max:
            raise ValueError(f"the reference must hold {n + d_max} samples "
                             f"(the chunk plus {d_max} of history), got {len(reference)}")
        ref = np.asarray(reference, np.float64)
        mic_ctx, ref_ctx = self._context(mic, ref, d_max)
        if _db(ref) < self.options.min_reference_db or n == 0:
            self.last = EchoEstimate(0.0, 0.0, float("-inf"))
            return mic
        self._learn(mic_ctx, ref_ctx, len(mic_ctx), d_max)
        if self.path is None:  # no echo has ever been seen: nothing to remove
            self.last = EchoEstimate(0.0, 0.0, float("-inf"))
            return mic
        delay, taps = self.path
        m = len(mic_ctx)
        echo = self._lagged(ref_ctx, m, d_max, delay) @ taps
        residual = (mic_ctx - echo).astype(np.float32)
        self.last = EchoEstimate(delay / SAMPLE_RATE, float(np.sum(taps)), _db(echo[m - n:]))
        return self._suppress(residual, echo, n)

    def _context(self, mic: np.ndarray, ref: np.ndarray, d_max: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """This call's input after the input of the calls just before it (up to
        ``context_s``), with the reference over the same span plus its history. Calls
        are taken as contiguous, as the runtime makes them (`reset` after a jump)."""
        keep = round(self.options.context_s * SAMPLE_RATE)
        if len(self._mic) and len(self._ref) == len(self._mic) + d_max:
            mic_ctx = np.concatenate([self._mic, mic])
            ref_ctx = np.concatenate([self._ref, ref[d_max:]])
        else:
            mic_ctx, ref_ctx = mic, ref
        drop = max(0, len(mic_ctx) - keep)
        mic_ctx, ref_ctx = mic_ctx[drop:], ref_ctx[drop:]
        self._mic, self._ref = mic_ctx, ref_ctx
        return mic_ctx, ref_ctx

    def _learn(self, mic: np.ndarray, ref: np.ndarray, n: int, d_max: int) -> None:
        # Only from where the reference begins: the user's own speech just before a reply
        # (their question) is in the context too, and would hide a clear echo path at the
        # reply's first hops (the canceller's cold start: the reply's first 0.3 s leaked).
        sounding = np.flatnonzero(np.abs(ref) > _SILENT)
        if len(sounding):
            k0 = max(0, min(int(sounding[0]) - d_max, n - _WINDOW))
            mic, ref, n = mic[k0:], ref[k0:], n - k0
        spans = [(mic, ref, n, self.options.learn_correlation)]
        recent = round(_RECENT_S * SAMPLE_RATE)
        if n > 2 * recent:
            # The path moves when a page plays the rest of a reply from a new offset (a
            # frame that came late plays late, and the rest follows it): just after the
            # user's own words, which keep the whole context's correlation low, the last
            # moments alone show where it went (a backchannel's pause left the old path
            # 1.5 s in place: "Hmm" was heard as "hmm ... rots from zero"). So short a
            # stretch of the user's voiced speech can fit a filtered reference by chance
            # (0.68 in the duplex bench, where no echo is played back): only a near
            # copy counts there.
            spans.append((mic[-recent:], ref[-(recent + d_max):], recent, _RECENT_CORRELATION))
        fits = []
        for m, r, k, least in spans:
            delays = [self._delay(m, r, k, d_max)]
            if self.path is not None:
                # A held path must be beaten on the same input: where an answer starts
                # near the end of the context, the raw correlation can peak a pitch period
                # off the true delay (Piper's voiced onsets: 9 ms off, at a third of the
                # gain).
                delays.append(self.path[0])
            fits += [f for f in (self._fit(m, r, k, d_max, d) for d in delays)
                     if f is not None and f[2] >= least]
        best = max(fits, key=lambda f: f[2], default=None)
        if best is not None:
            self.path = best[:2]

    def _fit(self, mic: np.ndarray, ref: np.ndarray, n: int, d_max: int, delay: int
             ) -> tuple[int, np.ndarray, float] | None:
        """(delay, least-squares filter around it, correlation of the filtered reference
        with the mic) at ``delay``."""
        x = self._lagged(ref, n, d_max, delay)
        gram = x.T @ x
        mic_energy = float(np.dot(mic, mic))
        if mic_energy <= 0 or np.trace(gram) <= 0:
            return None
        ridge = 1e-6 * np.trace(gram) / len(gram)
        taps = np.linalg.solve(gram + ridge * np.eye(len(gram)), x.T @ mic)
        if not 0.0 <= float(np.sum(taps)) <= self.options.max_gain:
            return None
        echo = x @ taps
        cross, energy = float(np.dot(mic, echo)), float(np.dot(echo, echo))
        if energy <= 0:
            return None
        return delay, taps, cross / np.sqrt(energy * mic_energy)

    def _lagged(self, ref: np.ndarray, n: int, d_max: int, delay: int) -> np.ndarray:
        """The reference at the filter's lags around ``delay`` (within ``0..d_max``), one
        column per lag, over the ``n`` input samples."""
        width = min(self.options.taps, d_max + 1)
        first = min(max(0, delay - width // 2), d_max + 1 - width)
        return np.stack([ref[d_max - lag: d_max - lag + n]
                         for lag in range(first, first + width)], axis=1)

    @staticmethod
    def _delay(mic: np.ndarray, ref: np.ndarray, n: int, d_max: int) -> int:
        """The lag in ``0..d_max`` samples at which the reference best explains the mic."""
        size = 1 << int(np.ceil(np.log2(n + len(ref))))
        spectrum = np.conj(np.fft.rfft(mic, size)) * np.fft.rfft(ref, size)
        corr = np.fft.irfft(spectrum, size)
        # corr[k] = sum_t mic[t] * ref[t + k]; echo delay d aligns mic[t] with ref[t + d_max - d].
        lags = corr[0:d_max + 1][::-1]  # index d -> lag d_max - d
        return int(np.argmax(lags))

    def _suppress(self, residual: np.ndarray, echo: np.ndarray, n: int) -> np.ndarray:
        """The last ``n`` samples of ``residual``, with every 32 ms window whose residual
        is far below its echo silenced; windows are counted back from the end and judged
        whole, reaching into the context before the call where they start before it."""
        factor = 10 ** (self.options.suppress_db / 20)
        out = residual.copy()
        end, first = len(out), len(out) - n
        while end > first:
            start = max(0, end - _WINDOW)
            e, r = echo[start:end], residual[start:end]
            e_rms = float(np.sqrt(np.mean(np.square(e)))) if len(e) else 0.0
            if e_rms > 0 and float(np.sqrt(np.mean(np.square(r)))) < e_rms * factor:
                out[max(start, first):end] = 0.0
            end = start
        return out[first:]


def _db(audio: np.ndarray) -> float:
    if len(audio) == 0:
        return float("-inf")
    return float(10 * np.log10(max(float(np.mean(np.square(audio))), 1e-12)))
