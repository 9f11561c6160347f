"""`AudioSpeechOutput`: the embedded TTS behind a playout queue with a cursor on session time.

Implements `venus.speech.base.OutputControl` (and so `SpeechOutput`) with real audio.
Above `venus.speech.pieces` and `base`; the runtime's duplex I/O steers it. Each queued utterance is cut
into short pieces (sentences, clauses) and each piece is synthesized before it plays:
inline, just before, in simulated time (it takes no session time, and replays stay
byte-identical); on a worker, all pieces in order from the moment of queueing, with ``ahead``
(live sessions: `venus.speech.synthesis.SynthesisAhead`), so the caller never waits for the
TTS. Ahead, the first piece is cut short (``first_piece_words``) and an utterance starts
playing at the first `poll` that finds that piece ready (silence until then); a later piece
not ready in time holds the cursor, as a pause would.
Playback is a deterministic function of session time: the output keeps a *committed
horizon* (the sample up to which the played waveform is final) and renders into one
buffer aligned sample for sample with the session's input (session time 0 = sample 0),
which is the echo reference and ``output.wav``.

Control at sample resolution:

* `stop` commits playback up to the decision time and flushes everything after it, so
  the output is silent from the decision's own sample (well within one 20 ms frame).
* `duck` / `unduck` (lower gain) and `pause` / `resume` (the cursor holds, nothing is
  lost) are *scheduled* at session times; they are the first, fast stage of overlap
  handling, driven by a gate that watches the input audio at 32 ms resolution.
* Playback acknowledgement is word-level: `heard` records, per utterance, which words
  played before a stop (from the TTS's word timings), so a revised answer can continue
  from what the user actually heard, and an utterance is FINISHED (the acknowledgement
  the harness needs to mark a result DELIVERED) only when its last sample has played.

Input following: once a frontend calls `advance(until)` (it has seen the input up to
``until`` and scheduled any pause in it), `poll` never commits past what that frontend
has seen (at most ``input_lag_s`` behind ``now``), so a pause the gate finds at 32 ms
resolution inside a one-second chunk is applied at the right sample. Without a frontend
calling `advance`, playback simply follows ``now``. `preview` renders what will play if
nothing changes, without committing (what a loudspeaker is about to emit: the simulated
room's echo and the echo canceller's reference).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

import numpy as np

from memory.media import SAMPLE_RATE
from memory.models.base import Speech, SpeechSynthesizer
from venus.speech.base import Heard, PlaybackReport, PlaybackStatus, Utterance
from venus.speech.pieces import split_pieces
from venus.speech.synthesis import ESPEAK_PITCH, ESPEAK_RATE, ESPEAK_VOICE, SynthesisAhead

__all__ = ["AudioSpeechOutput", "SpeechOutputOptions"]

logger = logging.getLogger(__name__)

_END = 1 << 62  # "never" in samples


@dataclass(frozen=True)
class SpeechOutputOptions:
    """``voice``/``rate``/``pitch`` passed to the synthesizer (its voice names, words per
    minute, 0-99; None: the synthesizer's own); ``duck_db`` the gain while ducked;
    ``max_piece_words`` the longest piece synthesized at once; ``first_piece_words`` the
    longest first piece when synthesizing ahead (its audio is the first audio of a reply);
    ``input_lag_s`` how far behind ``now`` playback may wait for the input gate;
    ``synthesis_s_per_word``: inline (simulated time, where synthesis takes no session
    time) an utterance starts this long per word of its first piece after it is queued,
    as it would live, where its first piece (``first_piece_words``) is synthesized
    after the decision (the factory sets it from the voice's time measured on this CPU:
    `venus.speech.synthesis.SYNTHESIS_S_PER_WORD`; None or 0: at once)."""

    voice: str | None = None
    rate: int | None = None
    pitch: int | None = None
    duck_db: float = -15.0
    max_piece_words: int = 14
    first_piece_words: int = 5
    input_lag_s: float = 1.25
    synthesis_s_per_word: float | None = None


@dataclass
class _Track:
    utterance: Utterance
    pieces: list[str]
    queued_at: int  # sample
    audio: dict[int, Speech] = field(default_factory=dict)  # shared by previews
    pending: list[Future[Speech]] = field(default_factory=list)  # ahead: one per piece
    ready: bool = True  # ahead: False until a poll finds the first piece synthesized

    @property
    def words(self) -> int:
        return max(1, sum(len(p.split()) for p in self.pieces))


@dataclass
class _Cursor:
    track: _Track
    piece: int = 0
    offset: int = 0  # samples into the piece


@dataclass
class _State:
    horizon: int = 0
    current: _Cursor | None = None
    queue: list[_Track] = field(default_factory=list)
    gain: float = 1.0
    paused: bool = False
    actions: list[tuple[int, str]] = field(default_factory=list)  # (sample, action), sorted

    def copy(self) -> _State:
        cur = replace(self.current) if self.current else None
        return replace(self, current=cur, queue=list(self.queue), actions=list(self.actions))


Emit = Callable[[_Track, PlaybackStatus, int, _Cursor | None], None]


class AudioSpeechOutput:
    """Real speech output: TTS pieces, a playout cursor, duck/pause/stop, word-level acks.

    ``synthesizer`` defaults to `memory.models.EspeakSynthesizer` (``en-us+m3``, 175
    words a minute; loaded on first use); ``ahead``: synthesize on a worker thread (live
    sessions; `close` stops it).
    """

    def __init__(self, options: SpeechOutputOptions | None = None, *,
                 synthesizer: SpeechSynthesizer | None = None, ahead: bool = False) -> None:
        self.options = options or SpeechOutputOptions()
        self._tts = synthesizer
        self._ahead = SynthesisAhead(self._synthesizer()) if ahead else None
        self._state = _State()
        self._buffer = np.zeros(SAMPLE_RATE * 30, np.float32)
        self._reports: list[PlaybackReport] = []
        self._following = False
        self._input_until = 0
        self.heard: dict[str, Heard] = {}
        self.started: list[tuple[str, float]] = []  # (utterance id, session time) per start
        self.duck_gain = float(10 ** (self.options.duck_db / 20))

    # -- the SpeechOutput Protocol ---------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._state.current is not None or bool(self._state.queue)

    def queue(self, utterance: Utterance, now: float) -> None:
        o = self.options
        first = o.first_piece_words if self._ahead else None
        pieces = split_pieces(utterance.text, o.max_piece_words, first) or [""]
        track = _Track(utterance, pieces, max(_sample(now), self._state.horizon))
        if self._ahead is None and o.synthesis_s_per_word:  # as long as it would live
            head = split_pieces(utterance.text, o.max_piece_words, o.first_piece_words)
            words = len(head[0].split()) if head else 0
            track.queued_at += _sample(o.synthesis_s_per_word * words)
        if self._ahead is not None:
            track.pending = [self._ahead.submit(p, o.voice, o.rate, o.pitch) for p in pieces]
            track.ready = False
        self._state.queue.append(track)

    def poll(self, now: float) -> list[PlaybackReport]:
        self._arrive(now)
        target = _sample(now)
        if self._following:
            target = min(target, max(self._input_until, _sample(now - self.options.input_lag_s)))
        self._commit(target)
        return self._take()

    def stop(self, now: float) -> list[PlaybackReport]:
        """Silence from ``now``'s own sample: commit up to it, then flush everything."""
        self._commit(_sample(now))
        s = self._state
        if s.current is not None:
            self._emit(s.current.track, PlaybackStatus.STOPPED, s.horizon, s.current)
        for track in s.queue:
            self._emit(track, PlaybackStatus.STOPPED, s.horizon, None)
        for track in ([s.current.track] if s.current else []) + s.queue:
            for future in track.pending:
                future.cancel()  # not started: never synthesized
        s.current, s.queue, s.actions = None, [], []
        s.gain, s.paused = 1.0, False
        return self._take()

    flush = stop  # the same atomic operation: nothing queued survives, nothing more plays

    def first_audio(self) -> Future[Speech] | None:
        """Ahead, with nothing playing: the synthesis of the next reply's first piece, not
        done yet (None otherwise). A live loop waits on it beside the next hop, so a reply
        starts when its first audio exists (`poll` then starts it), not a hop later."""
        s = self._state
        if s.current is not None or not s.queue or s.queue[0].ready or not s.queue[0].pending:
            return None
        first = s.queue[0].pending[0]
        return None if first.done() else first

    def close(self) -> None:
        """Stop the synthesis worker (ahead): pieces not started are dropped."""
        if self._ahead is not None:
            self._ahead.close()

    @property
    def synthesizer(self) -> SpeechSynthesizer:
        """The voice this output speaks with."""
        return self._synthesizer()

    @property
    def synthesis(self) -> SynthesisAhead | None:
        """The worker synthesizing ahead (None: inline)."""
        return self._ahead

    # -- control at sample resolution --------------------------------------------------
    def advance(self, until: float) -> list[PlaybackReport]:
        """The input up to ``until`` has been seen (and any pause in it scheduled): play
        up to there, and report what started, finished or stopped meanwhile (at the
        sink's own sample times). From the first call on, `poll` waits for these calls."""
        self._following = True
        self._input_until = max(self._input_until, _sample(until))
        self._commit(self._input_until)
        return self._take()

    def duck(self, at: float) -> None:
        self._schedule(at, "duck")

    def unduck(self, at: float) -> None:
        self._schedule(at, "unduck")

    def pause(self, at: float) -> None:
        self._schedule(at, "pause")

    def resume(self, at: float) -> None:
        self._schedule(at, "resume")

    def cancel_scheduled(self, action: str) -> None:
        """Drop ``action`` entries not yet played (e.g. a pause the overlap ended before)."""
        self._state.actions = [a for a in self._state.actions if a[1] != action]

    @property
    def paused(self) -> bool:
        return self._state.paused

    @property
    def ducked(self) -> bool:
        return self._state.gain < 1.0

    @property
    def horizon(self) -> float:
        """Session time up to which playback is final."""
        return self._state.horizon / SAMPLE_RATE

    @property
    def current(self) -> Utterance | None:
        """The utterance at the cursor (playing or paused)."""
        return self._state.current.track.utterance if self._state.current else None

    def heard_so_far(self) -> Heard | None:
        """What has been heard of the current utterance up to the horizon."""
        cur = self._state.current
        return self._heard(cur.track, cur, PlaybackStatus.STARTED) if cur else None

    # -- the played signal -------------------------------------------------------------
    def rendered(self, start: float, end: float) -> np.ndarray:
        """The committed output over ``[start, end)`` (zeros where nothing played)."""
        a, b = _sample(start), _sample(end)
        out = np.zeros(max(0, b - a), np.float32)
        lo, hi = max(a, 0), min(b, self._state.horizon, len(self._buffer))
        if hi > lo:
            out[lo - a:hi - a] = self._buffer[lo:hi]
        return out

    def preview(self, start: float, end: float) -> np.ndarray:
        """What plays over ``[start, end)`` if nothing changes (nothing is committed)."""
        out = self.rendered(start, end)
        a, b = _sample(start), _sample(end)
        if b <= self._state.horizon:
            return out
        state = self._state.copy()

        def sink(at: int, audio: np.ndarray) -> None:
            lo, hi = max(at, a), min(at + len(audio), b)
            if hi > lo:
                out[lo - a:hi - a] = audio[lo - at:hi - at]
        self._run(state, b, sink, lambda *args: None)
        return out

    def waveform(self, end: float | None = None) -> np.ndarray:
        """The whole committed output from session time 0 (to ``end`` when given)."""
        n = self._state.horizon if end is None else _sample(end)
        return self.rendered(0.0, n / SAMPLE_RATE)

    # -- playback engine ---------------------------------------------------------------
    def _schedule(self, at: float, action: str) -> None:
        sample = max(_sample(at), self._state.horizon)
        self._state.actions.append((sample, action))
        self._state.actions.sort(key=lambda a: a[0])

    def _commit(self, until: int) -> None:
        if until > self._state.horizon:
            self._run(self._state, until, self._write, self._emit)
        s = self._state
        if (s.current is None and s.queue and s.queue[0].ready
                and s.queue[0].queued_at <= s.horizon and not s.paused):
            # due now: it starts at the horizon, reported at once (not when its first
            # samples are committed on the next hop)
            s.current = _Cursor(s.queue.pop(0))
            self._emit(s.current.track, PlaybackStatus.STARTED, s.horizon, s.current)

    def _run(self, s: _State, until: int, sink: Callable[[int, np.ndarray], None],
             emit: Emit) -> None:
        while s.horizon < until:
            while s.actions and s.actions[0][0] <= s.horizon:
                self._apply(s, s.actions.pop(0)[1])
            end = min(until, s.actions[0][0] if s.actions else _END)
            if s.current is None and s.queue:
                if not s.queue[0].ready or s.queue[0].queued_at > s.horizon:
                    s.horizon = min(end, s.queue[0].queued_at) if s.queue[0].ready else end
                    continue
                s.current = _Cursor(s.queue.pop(0))
                emit(s.current.track, PlaybackStatus.STARTED, s.horizon, s.current)
            if s.current is None or s.paused:
                s.horizon = end
                continue
            self._play(s, end, sink, emit)

    def _play(self, s: _State, end: int, sink, emit: Emit) -> None:
        cur = s.current
        speech = self._piece(cur.track, cur.piece)
        if speech is None:  # ahead, and not synthesized yet: hold the cursor
            s.horizon = end
            return
        audio = speech.audio
        n = min(end - s.horizon, len(audio) - cur.offset)
        if n > 0:
            sink(s.horizon, audio[cur.offset:cur.offset + n] * s.gain)
            cur.offset += n
            s.horizon += n
        if cur.offset >= len(audio):
            cur.piece, cur.offset = cur.piece + 1, 0
            if cur.piece >= len(cur.track.pieces):
                emit(cur.track, PlaybackStatus.FINISHED, s.horizon, cur)
                s.current = None

    def _apply(self, s: _State, action: str) -> None:
        if action == "duck":
            s.gain = self.duck_gain
        elif action == "unduck":
            s.gain = 1.0
        elif action == "pause":
            s.paused = True
        elif action == "resume":
            s.paused = False

    def _piece(self, track: _Track, index: int) -> Speech | None:
        """The piece's speech; None while it is still being synthesized ahead."""
        speech = track.audio.get(index)
        if speech is None:
            if track.pending:
                if not track.pending[index].done():
                    return None
                speech = track.pending[index].result()
            else:
                o = self.options
                speech = self._synthesizer().synthesize(track.pieces[index], o.voice, o.rate,
                                                        o.pitch)
            track.audio[index] = speech
        return speech

    def _arrive(self, now: float) -> None:
        """Ahead: an utterance whose first piece is now synthesized may start from ``now``."""
        for track in self._state.queue:
            if not track.ready and track.pending[0].done():
                track.ready = True
                track.queued_at = max(track.queued_at, _sample(now))

    def _synthesizer(self) -> SpeechSynthesizer:
        if self._tts is None:
            from memory.models import EspeakSynthesizer

            self._tts = EspeakSynthesizer(ESPEAK_VOICE, ESPEAK_RATE, ESPEAK_PITCH)
        return self._tts

    def _write(self, at: int, audio: np.ndarray) -> None:
        need = at + len(audio)
        if need > len(self._buffer):
            grown = np.zeros(max(need, 2 * len(self._buffer)), np.float32)
            grown[:len(self._buffer)] = self._buffer
            self._buffer = grown
        self._buffer[at:need] = audio

    # -- reports and acknowledgements --------------------------------------------------
    def _emit(self, track: _Track, status: PlaybackStatus, at: int, cur: _Cursor | None) -> None:
        uid = track.utterance.utterance_id
        if status is PlaybackStatus.STARTED:
            self.started.append((uid, at / SAMPLE_RATE))
            self._reports.append(PlaybackReport(uid, status, at / SAMPLE_RATE, 0.0))
            return
        heard = self._heard(track, cur, status)
        self.heard[uid] = heard
        self._reports.append(PlaybackReport(uid, status, at / SAMPLE_RATE, heard.fraction))

    def _heard(self, track: _Track, cur: _Cursor | None, status: PlaybackStatus) -> Heard:
        text = " ".join(track.pieces)
        if status is PlaybackStatus.FINISHED:
            return Heard(track.utterance.utterance_id, text, text, 1.0, status)
        words: list[str] = []
        if cur is not None:
            for p in track.pieces[:cur.piece]:
                words += p.split()
            if cur.piece < len(track.pieces) and cur.piece in track.audio:
                said = track.audio[cur.piece].words
                n = sum(w.end * SAMPLE_RATE <= cur.offset for w in said)
                words += track.pieces[cur.piece].split()[:n]
        return Heard(track.utterance.utterance_id, text, " ".join(words),
                     min(1.0, len(words) / track.words), status)

    def _take(self) -> list[PlaybackReport]:
        reports, self._reports = self._reports, []
        return reports


def _sample(t: float) -> int:
    return round(t * SAMPLE_RATE)
