"""The runtime's duplex I/O: every frontend gets echo removal, perception, the overlap gate
and the output, with real eSpeak, Silero and Whisper; the frontend only decides."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE, VideoChunk
from venus import AssistantOptions, SimulatedClock, assistant
from venus.backends import BackendDecision, ChunkInput
from venus.errors import ConfigError
from venus.events import (
    ControlToken,
    FloorAction,
    OverlapClassified,
    OverlapKind,
    SpeechDetected,
    SpeechStopped,
)
from venus.factory import shared_models
from venus.frontend import Decision
from venus.frontend.embedded import EmbeddedFrontend
from venus.frontend.model_backed import ModelFrontend
from venus.perception import PerceptionConfig, UserPerception
from venus.runtime import DuplexIO, DuplexOptions, Session, SessionOptions
from venus.runtime.hops import merge_frames, split_hops
from venus.scenario import SimulatedRoom, parse_scenario
from venus.speech import AudioSpeechOutput, TimedTextOutput, Utterance
from venus.testing import FakeFrontend, FakeVideoSource, fake_chunk

ANSWER = ("Leaves make sugar from sunlight in a process called photosynthesis, and the "
          "sugar feeds the whole plant through the long summer days.")


class ScriptedBackend:
    """A `venus.backends.ModelBackend` that hears: it speaks the answer first, keeps
    speaking while its audio is quiet, and listens (stops for the user) when it is loud.
    Its audio must be free of the assistant's own voice, or it would stop for itself."""

    def __init__(self) -> None:
        self.inputs: list[ChunkInput] = []

    def decide(self, chunk: ChunkInput) -> BackendDecision:
        self.inputs.append(chunk)
        if len(self.inputs) == 1:
            return BackendDecision(ControlToken.SPEAK, ANSWER)
        loud = chunk.audio is not None and float(np.sqrt(np.mean(np.square(chunk.audio)))) > 0.02
        return BackendDecision(ControlToken.LISTEN if loud or chunk.words else ControlToken.SPEAK)

    def reset(self) -> None:
        self.inputs.clear()

    def close(self) -> None:
        pass


def _entries(session, kind):
    return [(e.time, e.event) for e in session.timeline if isinstance(e.event, kind)]


def test_a_model_frontend_gets_echo_removal_and_the_gate():
    backend = ScriptedBackend()
    scenario = parse_scenario({"name": "model", "echo": {"gain_db": -6, "delay_ms": 30},
                               "tail_s": 3, "turns": [
                                   {"after_assistant": 2.0, "text": "Wait, what do the roots do?"}]})
    models = shared_models()
    with assistant(frontend=ModelFrontend(backend), mode="audio", clock=SimulatedClock(),
                   session_id="model", models=models,
                   options=AssistantOptions(session=SessionOptions(drain_s=0.0))) as session:
        room = SimulatedRoom(scenario, models.tts, output=session.speech)
        session.run(room)
    user = room.placed[0]
    # The assistant's own voice reached the microphone, but no user speech was heard in it.
    detected = [e for _, e in _entries(session, SpeechDetected)]
    assert detected and all(e.end > user.start for e in detected), detected
    # The gate silenced the output within 0.6 s of the user's onset (the word probe read
    # "wait"), before the model's decision at the chunk boundary, and the model's
    # <|listen|> then yielded the floor.
    wave = session.speech.waveform()
    a = round((user.start + 0.6) * SAMPLE_RATE)
    assert np.abs(wave[round((user.start - 0.5) * SAMPLE_RATE):round(user.start * SAMPLE_RATE)]).max() > 0.05
    assert np.abs(wave[a:a + SAMPLE_RATE // 4]).max() < 1e-3
    stopped = [e for _, e in _entries(session, SpeechStopped) if e.reason != "session ended"]
    assert stopped and stopped[0].heard_fraction < 1.0
    assert any("roots" in c.words.lower() for c in backend.inputs), [(c.start, c.words) for c in backend.inputs]  # and the user's words


@pytest.fixture(scope="module")
def models():
    return shared_models()


def _duplex(models) -> tuple[DuplexIO, AudioSpeechOutput]:
    output = AudioSpeechOutput(synthesizer=models.tts)
    perception = UserPerception(PerceptionConfig(), detector=models.detector,
                                transcriber=models.transcriber, faces=False)
    return DuplexIO(output, perception, DuplexOptions(partials="overlap")), output


HOP = SessionOptions().hop_s  # the gate acts at the end of the hop it hears something in


def _hear(duplex: DuplexIO, chunk: VideoChunk):
    """Hear ``chunk`` as the session does: in the runtime's hops (the gate acts at each
    hop's end), the hops' frames merged into the chunk's frame."""
    hop_s = SessionOptions().hop_s
    return merge_frames([duplex.hear(hop) for hop in split_hops(chunk, hop_s)])


def _silent(i: int) -> VideoChunk:
    return VideoChunk(i, float(i), float(i + 1), (), np.zeros(SAMPLE_RATE, np.float32))


def test_settle_releases_a_harmless_overlap_and_closes_an_interruption(models):
    for kind, released in ((OverlapKind.BACKCHANNEL, True), (OverlapKind.INTERRUPTION, False)):
        duplex, output = _duplex(models)
        try:
            output.queue(Utterance("u1", ANSWER), 0.0)
            _hear(duplex, _silent(0))
            duplex.gate.onset(1.2, quiet=False)  # as if the VAD had found the user at 1.2 s
            frame = _hear(duplex, _silent(1))
            assert frame.overlap is not None and frame.overlap.onset == 1.2
            assert output.ducked and not output.paused  # ducked, still playing
            assert np.abs(output.rendered(1.4, 2.0)).max() > 0.005
            duplex.settle(Decision(perceived=(OverlapClassified(kind, "mm-hmm"),)), 2.0)
            assert duplex.gate.episode is None
            _hear(duplex, _silent(2))
            # an interruption is left to the session, which stops the output at once
            assert output.ducked is not released
        finally:
            duplex.close()


def test_an_overlap_the_answer_ends_under_in_its_chunk_is_handed_over_closed(models):
    """The user began over the answer's last words and the answer ended in the same
    chunk: the episode closes there (what the user says now is a turn), and the frame
    says so (`DuplexFrame.closed`), so the frontend judges those words as an overlap the
    answer ended under rather than as a turn begun in silence; the next chunk has none."""
    duplex, output = _duplex(models)
    try:
        output.queue(Utterance("u1", "Roots take up water."), 0.0)
        _hear(duplex, _silent(0))
        duplex.gate.onset(0.9, quiet=False)  # over the answer's last words
        frame = _hear(duplex, _silent(1))
        assert not frame.speaking and frame.overlap is None
        assert frame.closed is not None and frame.closed.onset == 0.9, frame
        assert _hear(duplex, _silent(2)).closed is None
    finally:
        duplex.close()


def test_a_bare_wait_over_the_answer_pauses_it_at_once(models):
    """"Wait." ends before the first probe time and the user goes on after a breath (a new
    VAD region): the probe reads it at its confirmed end and the output pauses there,
    within 0.7 s of the onset, with no final transcript in yet."""
    duplex, output = _duplex(models)
    mic = np.zeros(4 * SAMPLE_RATE, np.float32)
    for text, at in (("Wait.", 1.2), ("What do the roots do?", 1.9)):
        said = models.tts.synthesize(text, "en-us", 175, 50).audio
        a = round(at * SAMPLE_RATE)
        mic[a:a + len(said)] += said[:len(mic) - a]
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        for i in range(3):
            audio = mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]
            frame = _hear(duplex, VideoChunk(i, float(i), float(i + 1), (), audio))
        assert frame.overlap is not None and frame.overlap.stopped, frame.overlap
        assert "wait" in frame.overlap.words.lower()
        onset = frame.overlap.onset
        assert 1.1 <= onset <= 1.4
        assert np.abs(output.rendered(onset - 0.5, onset)).max() > 0.005  # it was speaking
        assert np.abs(output.rendered(onset + 0.7, 3.0)).max() < 1e-3  # paused since
    finally:
        duplex.close()


def test_an_overlap_that_goes_on_after_a_breath_is_open_again_and_probed_on(models):
    """"Oh." ends before the first probe time, then the same speaker goes on after a
    breath ("wait, what about the bees?": a second VAD region inside the same overlap).
    The overlap is open again while they speak (not judged as ended on the first
    region), and the probe keeps reading at its later times, so the floor-taking words
    of the second region still pause the output inside the chunk."""
    duplex, output = _duplex(models)
    mic = np.zeros(4 * SAMPLE_RATE, np.float32)
    for text, at in (("Oh.", 1.2), ("Wait, what about the bees?", 1.75)):
        said = models.tts.synthesize(text, "en-us", 175, 50).audio
        a = round(at * SAMPLE_RATE)
        mic[a:a + len(said)] += said[:len(mic) - a]
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        frames = []
        for i in range(3):
            audio = mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]
            frames.append(_hear(duplex, VideoChunk(i, float(i), float(i + 1), (), audio)))
        ep = frames[-1].overlap
        assert ep is not None and 1.1 <= ep.onset <= 1.4
        assert ep.ended_at is None  # speaking again: the overlap is not over
        # read on into the second region (and no more once it paused the output)
        assert duplex.gate.probes[-1].submitted > 1.75
        assert ep.stopped and "wait" in ep.words.lower(), ep
        assert np.abs(output.rendered(ep.onset + 1.3, 3.0)).max() < 1e-3  # paused by then
    finally:
        duplex.close()


def test_an_onset_confirmed_in_the_next_chunk_is_judged_on_the_output_before_it(models):
    """The user starts just before a chunk boundary and the VAD confirms the onset in the
    next chunk, while the output is in a short pause between two clauses right after the
    boundary. Whether the assistant was audible is read on the 0.25 s of output before
    the onset (the previous chunk), so this is an overlap, not a turn heard in silence
    (which would be answered only after the whole answer had played)."""
    duplex, output = _duplex(models)
    two = "Leaves make sugar from sunlight. Roots take up water and minerals from the soil."
    probe = AudioSpeechOutput(synthesizer=models.tts)
    probe.queue(Utterance("p", two), 0.0)
    probe.advance(4.0)
    wave = probe.rendered(0.0, 4.0)
    frame_n = SAMPLE_RATE // 100
    loud = np.abs(wave[:len(wave) // frame_n * frame_n]).reshape(-1, frame_n).max(axis=1) > 1e-3
    # the pause between the two sentences (0.08 s or more, after 0.5 s of speech)
    gap = next(i for i in range(50, len(loud) - 8) if loud[i - 1] and not loud[i:i + 8].any())
    boundary = int(gap / 100) + 1
    start = boundary - gap / 100 - 0.005  # the output pauses from just before a boundary
    mic = np.zeros((boundary + 2) * SAMPLE_RATE, np.float32)
    said = models.tts.synthesize("Wait, is that right?", "en-us", 175, 50).audio
    a = round((boundary - 0.07) * SAMPLE_RATE)
    mic[a:a + len(said)] += said[:len(mic) - a]
    try:
        output.queue(Utterance("u1", two), start)
        frames = [_hear(duplex, VideoChunk(i, float(i), float(i + 1), (), mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]))
                  for i in range(boundary + 1)]
        # confirmed in the chunk after the boundary, the onset itself before it
        assert not frames[-2].perception.onsets and frames[-1].perception.onsets
        onset = frames[-1].perception.onsets[0]
        assert boundary - 0.1 <= onset < boundary
        assert frames[-1].overlap is not None and frames[-1].overlap.onset == onset
    finally:
        duplex.close()


def test_the_decisions_topic_reaches_perception_with_no_overlap_open(models):
    duplex, _ = _duplex(models)
    try:
        duplex.settle(Decision(topic=("What do roots do?", "Roots take up water.")), 1.0)
        assert duplex.perception.context == ("What do roots do?", "Roots take up water.")
    finally:
        duplex.close()


def test_without_an_audio_output_or_perception_the_chunk_passes_through():
    duplex = DuplexIO(TimedTextOutput())
    chunk = fake_chunk(3, has_audio=True)
    frame = duplex.hear(chunk)
    assert frame.chunk is chunk and frame.perception is None and frame.overlap is None
    assert duplex.gate is None and duplex.echo is None and not frame.speaking


def test_a_frontend_that_needs_perception_says_how_to_get_it():
    session = Session(EmbeddedFrontend(), FakeVideoSource(2), clock=SimulatedClock())
    with pytest.raises(ConfigError, match="venus.assistant"):
        session.run()


def test_an_old_style_frontend_is_refused_with_the_new_protocol_named():
    class StepOnly:
        name = "old"

        def step(self, chunk, view):
            return Decision()

    with pytest.raises(ConfigError, match="decide\\(frame, view\\)"):
        Session(StepOnly(), FakeVideoSource(1), clock=SimulatedClock())


def test_the_factory_wires_the_embedded_frontend_and_closes_what_it_started(models):
    with assistant(mode="audio", clock=SimulatedClock(), models=models) as session:
        assert isinstance(session.frontend, EmbeddedFrontend)
        assert session.frontend.name == "embedded-audio"
        assert session.duplex.gate is not None and session.duplex.echo is not None
        assert session.duplex.perception.config.deterministic  # simulated time
        assert not session.duplex.perception.config.partials  # asked for only in overlaps
        summary = session.run(FakeVideoSource(2, has_audio=True))
    assert summary.chunks == 2
    with pytest.raises(RuntimeError):  # the ASR worker was joined: perception is closed
        session.duplex.perception.asr.submit(1, "final", np.zeros(10, np.float32), 0.0, 1.0,
                                             1.0, ())


def test_a_scripted_frontend_needs_no_perception():
    frontend = FakeFrontend({0: Decision(speech="Hello.")})
    with assistant(frontend=frontend, speech=TimedTextOutput(), clock=SimulatedClock(),
                   options=AssistantOptions(perceive=False)) as session:
        session.run(FakeVideoSource(3))
    assert session.duplex.perception is None and frontend.closed
    with pytest.raises(ConfigError, match="unknown mode"):
        assistant(mode="video")


class _OpenerAfter:
    """A word probe (a `memory.models.Transcriber`) that tells "Wait" once its clip holds
    ``after_s`` of speech past the onset (the clip begins ``asr_pad_s`` before it), and
    hears nothing in a shorter one: an opener the real probe only recognises from that
    much audio. It records the clip lengths it was asked to read."""

    def __init__(self, after_s: float, pad_s: float) -> None:
        self.after_s, self.pad_s = after_s, pad_s
        self.reads: list[float] = []

    def transcribe(self, audio, offset=0.0):
        from memory.models.base import Transcript, TranscriptSegment, Word

        length = len(audio) / SAMPLE_RATE
        self.reads.append(round(length - self.pad_s, 3))
        if length + 1e-6 < self.pad_s + self.after_s:
            return Transcript()
        end = offset + length
        return Transcript((TranscriptSegment("Wait", offset, end, (Word("Wait", offset, end),)),))


def _probed_duplex(models, probe, config=None):
    output = AudioSpeechOutput(synthesizer=models.tts)
    perception = UserPerception(config or PerceptionConfig(), detector=models.detector,
                                transcriber=models.transcriber, faces=False, probe=probe)
    return DuplexIO(output, perception, DuplexOptions(partials="overlap")), output


def _interrupted_mic(models, at: float = 1.3, seconds: int = 4) -> np.ndarray:
    mic = np.zeros(seconds * SAMPLE_RATE, np.float32)
    said = models.tts.synthesize("Wait, what do the roots do?", "en-us", 175, 50).audio
    a = round(at * SAMPLE_RATE)
    mic[a:a + len(said)] += said[:len(mic) - a]
    return mic


def test_an_opener_the_probe_can_tell_early_pauses_the_output_early(models):
    """The probe reads the first second of an overlap densely (every 0.15 s from 0.25 s),
    so an opener that is recognisable from 0.25 s of speech pauses the output 0.4 s after
    the onset (read + probe latency), not at the next read of a sparse schedule (0.4 s
    read: paused at 0.55 s)."""
    pad = PerceptionConfig().asr_pad_s
    probe = _OpenerAfter(0.25, pad)
    duplex, output = _probed_duplex(models, probe)
    mic = _interrupted_mic(models)
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        for i in range(3):
            frame = _hear(duplex, VideoChunk(i, float(i), float(i + 1), (), mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]))
        ep = frame.overlap
        assert ep is not None and ep.stopped, ep
        latency = PerceptionConfig().probe_latency_s
        assert np.abs(output.rendered(ep.onset - 0.5, ep.onset)).max() > 0.005  # speaking
        assert np.abs(output.rendered(ep.onset + 0.25 + latency + HOP, 3.0)).max() < 1e-3
        assert probe.reads[0] == pytest.approx(0.25, abs=0.01)
    finally:
        duplex.close()


class _OpenerThenName(_OpenerAfter):
    """Reads "Wait" from 0.25 s of speech and "Wait, John," from ``name_s``: the probe's
    view of "Wait, John, can you close the window?"."""

    def __init__(self, name_s: float, pad_s: float) -> None:
        super().__init__(0.25, pad_s)
        self.name_s = name_s

    def transcribe(self, audio, offset=0.0):
        from memory.models.base import Transcript, TranscriptSegment, Word

        said = super().transcribe(audio, offset)
        if len(audio) / SAMPLE_RATE + 1e-6 < self.pad_s + self.name_s:
            return said
        end = offset + len(audio) / SAMPLE_RATE
        return Transcript((TranscriptSegment("Wait, John,", offset, end,
                                             (Word("Wait,", offset, end), Word("John,", offset, end))),))


def test_an_opener_that_goes_on_to_name_someone_else_resumes_the_output(models):
    """"Wait, John, can you ...": the probe reads "Wait" and the gate pauses the output;
    it keeps reading, and once a read names someone else the output plays on (ducked)
    from there, within the 0.8 s a listener tolerates, and no later opener pauses it."""
    pad = PerceptionConfig().asr_pad_s
    probe = _OpenerThenName(0.55, pad)
    duplex, output = _probed_duplex(models, probe)
    mic = _interrupted_mic(models)
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        for i in range(3):
            frame = _hear(duplex, VideoChunk(i, float(i), float(i + 1), (), mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]))
        ep = frame.overlap
        assert ep is not None and ep.named_other and not ep.stopped, ep
        latency = PerceptionConfig().probe_latency_s
        paused = output.rendered(ep.onset + 0.25 + latency + HOP, ep.onset + 0.55 + latency - 0.01)
        assert np.abs(paused).max() < 1e-3
        back = ep.onset + 0.55 + latency
        assert back - (ep.onset + 0.25 + latency) < 0.8
        assert np.abs(output.rendered(back + HOP + 0.05, 3.0)).max() > 1e-3  # playing on, ducked
        assert len(probe.reads) == 6
    finally:
        duplex.close()


def test_the_probe_reads_a_loud_overlap_at_most_six_times():
    """The cost bound of the dense schedule: six reads in the first second (each is a
    ~50-70 ms Whisper call on the probe's worker), never two within 0.15 s."""
    times = DuplexOptions().gate.probe_at_s
    assert len(times) <= 6 and times[0] <= 0.3 and times[-1] >= 1.0
    assert all(b - a >= 0.15 - 1e-9 for a, b in zip(times, times[1:]))


class _ReadsAfter(_OpenerAfter):
    """A word probe that reads ``text`` once its clip holds ``after_s`` of speech past the
    onset and nothing before (``after_s`` None: it never makes anything out)."""

    def __init__(self, text: str, after_s: float | None, pad_s: float) -> None:
        super().__init__(after_s if after_s is not None else 99.0, pad_s)
        self.text = text

    def transcribe(self, audio, offset=0.0):
        from memory.models.base import Transcript, TranscriptSegment, Word

        said = super().transcribe(audio, offset)
        if not said.segments:
            return said
        end = offset + len(audio) / SAMPLE_RATE
        return Transcript((TranscriptSegment(self.text, offset, end, (Word(self.text, offset, end),)),))


def _run_gate(models, probe, seconds: int = 3):
    duplex, output = _probed_duplex(models, probe)
    mic = _interrupted_mic(models)
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        for i in range(seconds):
            frame = _hear(duplex, VideoChunk(i, float(i), float(i + 1), (), mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]))
    finally:
        duplex.close()
    return frame.overlap, output


def _silent_over(output, start: float, end: float) -> bool:
    return float(np.abs(output.rendered(start, end)).max()) < 1e-3


def test_sustained_loud_speech_holds_the_output_before_its_words_are_read(models):
    """The acoustic cue: loud speech over the answer that has gone on for `hold_after_s`
    (0.4 s) with no read saying it is harmless holds the output there, before any word is
    read; words that take the floor read later ("Wait" only from 0.55 s of audio, seen at
    0.7 s) keep it held: the listener hears the stop at 0.4 s, not at 0.7 s."""
    gate = DuplexOptions().gate
    ep, output = _run_gate(models, _OpenerAfter(0.55, PerceptionConfig().asr_pad_s))
    assert ep is not None and ep.stopped, ep
    assert not _silent_over(output, ep.onset - 0.5, ep.onset)  # it was speaking
    assert _silent_over(output, ep.onset + gate.hold_after_s + HOP, 3.0)  # held since


def test_an_opener_with_a_pause_after_it_holds_the_output_in_the_pause(models):
    """"Wait, [pause] what do the roots do?": the pause after an opener's comma (0.15-0.3 s
    in every voice family) often falls on `hold_after_s`; speech at the user's level
    within the VAD's offset window before it (`offset_silence_s`: a shorter pause is no
    end of speech) is still speech going on, so the output is held there, not 0.3 s later
    when the words are read (tuning 0032, 0030, 0004: stops at 0.56-1.09 s)."""
    gate, config = DuplexOptions().gate, PerceptionConfig()
    wait = models.tts.synthesize("Wait.", "en-us", 175, 50).audio
    rest = models.tts.synthesize("what do the roots do?", "en-us", 175, 50).audio
    voiced = np.flatnonzero(np.abs(wait) > 0.01)
    wait = wait[voiced[0]:voiced[0] + round(0.25 * SAMPLE_RATE)]  # a 0.25 s opener, then the pause
    mic = np.zeros(3 * SAMPLE_RATE, np.float32)
    a = round(1.3 * SAMPLE_RATE)
    b = a + round((gate.hold_after_s + 0.15) * SAMPLE_RATE)  # resumes after the hold's time
    mic[a:a + len(wait)] = wait
    mic[b:b + len(rest)] = rest[:len(mic) - b]
    duplex, output = _probed_duplex(models, _OpenerAfter(0.7, config.asr_pad_s))
    try:
        output.queue(Utterance("u1", ANSWER), 0.0)
        for i in range(3):
            frame = _hear(duplex, VideoChunk(i, float(i), float(i + 1), (),
                                           mic[i * SAMPLE_RATE:(i + 1) * SAMPLE_RATE]))
    finally:
        duplex.close()
    ep = frame.overlap
    assert ep is not None and ep.stopped, ep
    assert ep.onset + gate.hold_after_s < b / SAMPLE_RATE  # the cue fell in the pause
    assert _silent_over(output, ep.onset + gate.hold_after_s + HOP, 3.0)  # held since


def test_a_hold_no_words_confirm_plays_on_within_the_silence_a_listener_tolerates(models):
    """Loud speech the probe never makes out: held at 0.4 s, then playing on (ducked)
    `max_hold_s` later, a silence under the 0.8 s a listener tolerates."""
    gate = DuplexOptions().gate
    assert gate.max_hold_s < 0.8
    ep, output = _run_gate(models, _ReadsAfter("Wait", None, PerceptionConfig().asr_pad_s))
    assert ep is not None and not ep.stopped, ep
    held = ep.onset + gate.hold_after_s
    assert _silent_over(output, held + HOP, held + gate.max_hold_s - 0.01)
    assert not _silent_over(output, held + HOP + gate.max_hold_s + 0.01, 3.0)  # playing on


def test_a_read_that_says_backchannel_or_names_someone_else_ends_the_hold(models):
    """"Yeah" or "John," read after the hold began: the output plays on from there."""
    gate = DuplexOptions().gate
    latency = PerceptionConfig().probe_latency_s
    for text in ("Yeah.", "John,"):
        ep, output = _run_gate(models, _ReadsAfter(text, 0.4, PerceptionConfig().asr_pad_s))
        assert ep is not None and not ep.stopped, (text, ep)
        held, back = ep.onset + gate.hold_after_s, ep.onset + 0.4 + latency
        # each act lands at the end of the hop it was heard in, within a hop of its time
        assert _silent_over(output, held + HOP, back), text
        assert not _silent_over(output, back + HOP + 0.01, held + gate.max_hold_s - 0.01), text


def test_a_harmless_first_read_ends_the_hold_at_once(models):
    """"Mm-hmm" still going at the hold's time (0.3 s) is held until its first read
    (0.25 s, seen at 0.4 s) says backchannel: the output plays on from that read's hop,
    not after the hold's 0.5 s."""
    gate = DuplexOptions().gate
    assert gate.hold_after_s < 0.4  # the read is seen after the hold began
    ep, output = _run_gate(models, _ReadsAfter("Mm-hmm.", 0.25, PerceptionConfig().asr_pad_s))
    assert ep is not None and not ep.stopped, ep
    frame_n = SAMPLE_RATE // 100
    wave = output.rendered(ep.onset, ep.onset + 1.2)
    voiced = np.abs(wave[:len(wave) // frame_n * frame_n]).reshape(-1, frame_n).max(axis=1) > 1e-3
    # playing again from the read's hop on (0.5 s), not silent to the hold's end (0.8 s)
    assert voiced[50:80].sum() >= 22, voiced[30:80]


def test_a_reply_to_a_late_verdict_begins_after_a_turn_gap(models):
    """The verdict comes while the old answer still plays (nothing paused it): the answer
    is cut at the decision's sample and the reply begins `turn_gap_s` later, so a
    listener hears one answer end before the next begins (glued to the cut, it sounded
    like the same turn: the three "Do bees help plants make seeds?" samples of tuning).
    A reply after a gate that had paused the output is not delayed: it is silent already."""
    gap = SessionOptions().turn_gap_s
    assert 0.5 < gap < 1.0  # a turn boundary by FDB's merge (0.5 s), not a long wait
    script = {0: Decision(ControlToken.SPEAK, speech=ANSWER),
              3: Decision(ControlToken.SPEAK, speech="Bees carry pollen from flower to flower.",
                          floor=FloorAction.YIELD_FLOOR)}
    with assistant(frontend=FakeFrontend(script), clock=SimulatedClock(), models=models,
                   options=AssistantOptions(perceive=False)) as session:
        session.run(FakeVideoSource(8, has_audio=True))
    out = session.speech
    assert np.abs(out.rendered(3.5, 4.0)).max() > 0.005  # the old answer, up to the cut
    assert np.abs(out.rendered(4.0, 4.0 + gap - 0.01)).max() < 1e-3
    assert np.abs(out.rendered(4.0 + gap, 5.0)).max() > 0.005  # the reply
