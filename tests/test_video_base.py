"""The chunking pieces every source shares: nearest-frame sampling and audio slicing."""

from __future__ import annotations

import numpy as np
import pytest

from memory.media import SAMPLE_RATE
from memory.video.base import AudioBuffer, FrameSampler, chunk_samples, silence


def test_sampler_picks_the_nearest_frame_and_the_earlier_on_a_tie():
    sampler: FrameSampler[str] = FrameSampler(fps=2.0)
    decided = []
    for t, name in [(0.0, "a"), (0.3, "b"), (0.45, "c"), (0.55, "d"), (0.9, "e"), (1.1, "f")]:
        decided += sampler.offer(t, name)
    # 0.0 -> a (exact); 0.5 -> c and d tie at 0.05, the earlier wins; 1.0 -> e/f tie -> e
    assert decided == [(0.0, "a"), (0.5, "c"), (1.0, "e")]
    assert sampler.next_time == 1.5
    assert sampler.finish(end=2.2) == [(1.5, "f"), (2.0, "f")]


def test_sampler_matches_brute_force_nearest_on_random_frame_times():
    rng = np.random.default_rng(0)
    times = np.sort(rng.uniform(0, 20, 300))
    times[0] = 0.0
    sampler: FrameSampler[int] = FrameSampler(fps=3.0)
    decided = []
    for i, t in enumerate(times):
        decided += sampler.offer(float(t), i)
    decided += sampler.finish(end=20.0)
    for target, index in decided:
        distances = np.abs(times - target)
        assert distances[index] == pytest.approx(distances.min())
    assert [t for t, _ in decided] == pytest.approx([j / 3 for j in range(60)])


def test_sampler_rejects_a_non_positive_rate():
    with pytest.raises(ValueError, match="fps must be positive"):
        FrameSampler(fps=0)


def test_chunk_samples_cover_the_chunk_and_stop_at_the_end():
    assert chunk_samples(0, 7.4, 2.0) == [0.0, 0.5]
    assert chunk_samples(7, 7.4, 2.0) == [7.0]
    assert chunk_samples(1, 10.0, 0.5) == []
    assert chunk_samples(2, 10.0, 0.5) == [2.0]
    assert len(silence(7.0, 7.4)) == round(0.4 * SAMPLE_RATE)


def test_audio_buffer_slices_exactly_and_forgets_what_it_handed_out():
    buf = AudioBuffer()
    signal = np.arange(3 * SAMPLE_RATE, dtype=np.float32)
    for start in range(0, signal.size, 1000):
        buf.add(start / SAMPLE_RATE if start == 0 else None, signal[start:start + 1000])
    first = buf.take(0.0, 1.0)
    np.testing.assert_array_equal(first, signal[:SAMPLE_RATE])
    np.testing.assert_array_equal(buf.take(1.0, 2.5), signal[SAMPLE_RATE:int(2.5 * SAMPLE_RATE)])
    tail = buf.take(2.5, 3.2)  # past the stream: zero padded to the exact length
    assert tail.size == round(0.7 * SAMPLE_RATE)
    assert not tail[int(0.5 * SAMPLE_RATE):].any()


def test_audio_buffer_resyncs_on_a_timestamp_gap_and_pads_a_late_start():
    buf = AudioBuffer()
    buf.add(0.25, np.ones(SAMPLE_RATE // 4, np.float32))       # starts late: 0.25-0.5
    buf.add(0.75, np.full(SAMPLE_RATE // 4, 2, np.float32))    # a 0.25 s gap: 0.75-1.0
    out = buf.take(0.0, 1.0)
    quarter = SAMPLE_RATE // 4
    assert not out[:quarter].any()
    assert (out[quarter:2 * quarter] == 1).all()
    assert not out[2 * quarter:3 * quarter].any()
    assert (out[3 * quarter:] == 2).all()
