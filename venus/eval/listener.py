"""What a listener hears: the strict RESUME and RESPOND rules, judged from ``output.wav``.

Scoring layer of `venus.eval` (signals and speech regions only, no session, no decision
log). The output's regions are what a listener hears (`venus.eval.timing.heard_regions`:
Silero speech on a signal above -60 dBFS), the clean output's the same; the rules:

* **RESUME** (backchannel, other-directed, background): the assistant carried on if no
  output silence longer than `SILENCE_S` (0.8 s) *begins* between the overlap onset and
  the earlier of the overlap end + `RESUME_GRACE_S` (1 s) and the end of the same answer
  in ``clean_output.wav``. A silence already under way at the onset counts (the listener
  hears it whole). A duck is not a silence as long as VAD still hears the quieter voice.
  Samples where ``clean_output.wav`` is silent at the onset have no answer to continue:
  they are *not testable* for RESUME and are counted apart, never as passes.
* **RESPOND** (interruption): the output stops within `STOP_WITHIN_S` (1.5 s) of the onset
  and speaks again within `RESPOND_WITHIN_S` (3 s) after the overlap ends. "Stops" is
  where the output fell silent for good: the end of the last output region heard between
  the onset and the overlap's end, with gaps under `MODEL_GAP_S` (0.5 s, FDB's timing
  merge) bridged, so a breath between sentences is not a stop, and neither is a pause
  that plays on while the user still speaks (the gate's hold that no words confirmed);
  "speaks again" is the first output region that begins at or after the overlap's end. What is said
  then must be a reply, not the old answer again: `venus.eval.score.only_old_answer`
  reads that from the transcripts.

Interpretations the issue left open, chosen strictly: the answer's end in the clean
output is the end of its region containing the onset, with gaps up to `SILENCE_S`
bridged (a longer gap there is the end of that answer); a silence must begin more than
`END_TOLERANCE_S` (0.2 s, VAD's jitter at a region's edge) before that end to count
against RESUME when the clean end closes the window; a silence that runs to the end of
the file is as long as the rest of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from venus.eval.timing import MODEL_GAP_S

__all__ = ["END_TOLERANCE_S", "RESPOND_WITHIN_S", "RESUME_GRACE_S", "SILENCE_S",
           "STOP_WITHIN_S", "Heard", "answer_end", "hear", "silences"]

SILENCE_S = 0.8
RESUME_GRACE_S = 1.0
STOP_WITHIN_S = 1.5
RESPOND_WITHIN_S = 3.0
END_TOLERANCE_S = 0.2

Regions = list[tuple[float, float]]


@dataclass(frozen=True)
class Heard:
    """One overlap as a listener hears the output (times in seconds of the sample)."""

    resume: bool | None        # None: the clean output was silent at the onset
    respond: bool
    window: tuple[float, float] | None  # where a silence may not begin (RESUME)
    longest_silence_s: float   # longest output silence beginning in that window (0 if none)
    stop_latency: float | None  # onset -> the output goes silent (0 if silent at the onset)
    response_latency: float | None  # overlap end -> the output speaks again (None: never)


def silences(regions: Regions, duration: float) -> Regions:
    """The gaps between speech regions, with the leading and trailing ones."""
    out, at = [], 0.0
    for s, e in sorted(regions):
        if s > at:
            out.append((at, s))
        at = max(at, e)
    if duration > at:
        out.append((at, duration))
    return out


def _merged(regions: Regions, gap_s: float) -> Regions:
    out: Regions = []
    for s, e in sorted(regions):
        if out and s - out[-1][1] <= gap_s:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def answer_end(clean: Regions, onset: float) -> float | None:
    """End of the clean answer playing at ``onset`` (None when the clean output is silent)."""
    for s, e in _merged(clean, SILENCE_S):
        if s <= onset < e:
            return e
    return None


def _resume(output: Regions, duration: float, onset: float, end: float,
            clean_end: float | None) -> tuple[bool | None, tuple[float, float] | None, float]:
    if clean_end is None:
        return None, None, 0.0
    if clean_end <= end + RESUME_GRACE_S:
        close = clean_end - END_TOLERANCE_S
    else:
        close = end + RESUME_GRACE_S
    close = max(close, onset)
    heard = [(a, b) for a, b in silences(output, duration)
             if b > onset and a < close]  # under way at the onset, or beginning before close
    longest = round(max((b - a for a, b in heard), default=0.0), 3)
    return longest <= SILENCE_S, (onset, round(close, 3)), longest


def _respond(output: Regions, onset: float, end: float) -> tuple[bool, float | None, float | None]:
    merged = _merged(output, MODEL_GAP_S)
    # Where it fell silent for good: the end of the last region heard between the onset
    # and the overlap's end (a pause that plays on while the user still speaks is no stop)
    heard = [e for s, e in merged if s < end and e > onset]
    stop = round(max(0.0, max(heard) - onset), 3) if heard else 0.0
    after = [s for s, _ in merged if s >= end and s >= onset + stop]
    response = round(after[0] - end, 3) if after else None
    ok = stop <= STOP_WITHIN_S and response is not None and response <= RESPOND_WITHIN_S
    return ok, stop, response


def hear(output: Regions, clean: Regions, duration: float, onset: float, end: float) -> Heard:
    """Both verdicts for one overlap at [``onset``, ``end``] from the output's and the clean
    output's speech regions (``duration``: the output's length in seconds)."""
    resume, window, longest = _resume(output, duration, onset, end, answer_end(clean, onset))
    respond, stop, response = _respond(output, onset, end)
    return Heard(resume, respond, window, longest, stop, response)
