"""The page's voice as a stream: what the playout stream sends a sink (audio a little ahead
of the session's clock, and a cut wherever a decision changed the future), the wire
format both ways, the tab's audio link, and the socket served next to Gradio's app. The
output is the real `AudioSpeechOutput` (with the test synthesizer); no browser here (the
browser tests play it for real)."""

from __future__ import annotations

import asyncio
import json
import struct

import numpy as np
import pytest

from demos.link import AudioLink
from demos.playout import AudioFrame, Cut, PlayoutStream, decode_mic, encode_audio
from venus.speech import AudioSpeechOutput, Utterance
from venus.testing import FakeSynthesizer

HOP = 0.1


def _played(messages: list, sink: dict[int, float]) -> None:
    """A sink that holds what it was sent, sample by sample, and honours cuts."""
    for m in messages:
        if isinstance(m, Cut):
            cut = round(m.at * 16_000)
            for k in [k for k in sink if k >= cut]:
                del sink[k]
        else:
            first = round(m.start * 16_000)
            for i, x in enumerate(m.audio):
                sink[first + i] = float(x)


def _run(output: AudioSpeechOutput, stream: PlayoutStream, hops: int, actions=None):
    """Hops of 0.1 s as the session steps them: poll, act, then the stream's step."""
    sent, sink = [], {}
    for i in range(hops):
        now = round(i * HOP, 3)
        output.advance(now)
        output.poll(now)
        if actions and i in actions:
            actions[i](now)
        messages = stream.step(now)
        sent.append(messages)
        _played(messages, sink)
    return sent, sink


def _output() -> AudioSpeechOutput:
    return AudioSpeechOutput(synthesizer=FakeSynthesizer())


def test_the_sink_gets_exactly_what_the_output_plays_ahead_of_it():
    output = _output()
    stream = PlayoutStream(output, lead_s=0.4)
    output.queue(Utterance("u1", "The roots take up water and minerals from the soil."), 0.3)
    sent, sink = _run(output, stream, 60)
    frames = [m for step in sent for m in step if isinstance(m, AudioFrame)]
    assert frames and not any(isinstance(m, Cut) for step in sent for m in step)
    # every frame is sent before the session's clock reaches it (the lead), never twice
    for i, step in enumerate(sent):
        for m in step:
            assert m.start >= i * HOP - 1e-9
    starts = [round(m.start * 16_000) for m in frames]
    assert starts == sorted(starts)
    played = output.waveform()
    held = np.array([sink.get(k, 0.0) for k in range(len(played))], np.float32)
    assert np.abs(held - played).max() < 1e-6  # sample for sample what the session played


def test_a_stop_cuts_what_the_sink_holds_from_the_decision_on():
    output = _output()
    stream = PlayoutStream(output, lead_s=0.4)
    output.queue(Utterance("u1", "The roots take up water and minerals from the soil."), 0.0)
    sent, sink = _run(output, stream, 30, {12: lambda now: output.stop(now)})
    cuts = [m for m in sent[12] if isinstance(m, Cut)]
    assert len(cuts) == 1 and cuts[0].at == pytest.approx(1.2, abs=0.002)
    assert all(k < round(1.2 * 16_000) for k, x in sink.items() if x)  # silent from 1.2 s
    assert not any(isinstance(m, AudioFrame) for step in sent[13:] for m in step)


def test_a_duck_revises_the_audio_ahead_and_a_new_reply_needs_no_cut():
    output = _output()
    stream = PlayoutStream(output, lead_s=0.4)
    output.queue(Utterance("u1", "The roots take up water and minerals from the soil."), 0.0)

    def duck(now):
        output.duck(now)

    sent, sink = _run(output, stream, 20, {8: duck})
    cut = [m for m in sent[8] if isinstance(m, Cut)]
    assert len(cut) == 1 and cut[0].at == pytest.approx(0.8, abs=0.002)
    resent = [m for m in sent[8] if isinstance(m, AudioFrame)]
    assert resent and resent[0].start == pytest.approx(0.8, abs=0.002)
    played = output.waveform()
    held = np.array([sink.get(k, 0.0) for k in range(len(played))], np.float32)
    assert np.abs(held - played).max() < 1e-6  # the ducked audio replaced the loud one
    # a reply queued into silence is only new audio: nothing held is dropped
    output2 = _output()
    stream2 = PlayoutStream(output2, lead_s=0.4)
    sent2, _ = _run(output2, stream2, 20, {
        5: lambda now: output2.queue(Utterance("u2", "Yes."), now)})
    assert not any(isinstance(m, Cut) for step in sent2 for m in step)
    assert any(isinstance(m, AudioFrame) for m in sent2[5])


def test_wire_frames_round_trip_and_bad_microphone_frames_are_refused():
    frame = AudioFrame(1.25, 1.0, np.array([0.0, 0.5, -0.5, 1.0], np.float32))
    data = encode_audio(frame)
    assert data[:1] == b"A" and len(data) == 24 + 8
    start, now = struct.unpack_from("<dd", data, 8)
    assert (start, now) == (1.25, 1.0)
    assert np.frombuffer(data[24:], "<i2").tolist() == [0, 16383, -16383, 32767]
    pcm = np.array([0, 1000, -1000], "<i2")
    mic = b"M" + bytes(3) + struct.pack("<Id", 48_000, 0.02) + pcm.tobytes()
    rate, age, samples = decode_mic(mic)
    assert (rate, age, samples.tolist()) == (48_000, 0.02, [0, 1000, -1000])
    for bad in (b"", b"X" + mic[1:], mic[:-1],
                b"M" + bytes(3) + struct.pack("<Id", 12, 0.02) + pcm.tobytes(),
                b"M" + bytes(3) + struct.pack("<Id", 16_000, 99.0) + pcm.tobytes()):
        with pytest.raises(ValueError, match="microphone frame"):
            decode_mic(bad)


def test_the_link_holds_nothing_for_a_page_that_is_not_there_and_wakes_the_one_that_is():
    link = AudioLink()
    link.post({"op": "queued"})  # no page yet: dropped, not queued for later
    assert not link.connected

    async def talk():
        connection = link.open()
        hello = await link.take(timeout=0.1)
        waiting = asyncio.create_task(link.take(timeout=5.0))
        await asyncio.sleep(0)
        link.post(Cut(1.0, 1.1))  # from another thread in the app; wakes the sender
        link.post(AudioFrame(1.0, 1.1, np.zeros(4, np.float32)))
        got = await waiting
        link.close(connection)
        return hello, got, link.current(connection)

    hello, got, current = asyncio.run(talk())
    assert [json.loads(m)["op"] for m in hello] == ["hello"]
    assert json.loads(got[0]) == {"op": "cut", "at": 1.0, "now": 1.1}
    assert isinstance(got[1], bytes) and got[1][:1] == b"A"
    assert not current and not link.connected
    link.played({"op": "played", "lag": 0.09})
    link.played({"op": "played", "lag": "soon"})  # not a number: ignored
    assert list(link.lags) == [0.09] and link.lag() == 0.09
