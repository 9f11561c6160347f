"""Per-chunk processing: key frames by visual change, batched VAD + ASR, segments."""

from __future__ import annotations

import numpy as np
import pytest
from memory_stream import LECTURE, build_stream, draw

from memory.models.base import SpeechRegion, Transcript, TranscriptSegment, Word
from memory.store.config import StoreOptions
from memory.store.hierarchy import ChapterRoller, Segmenter
from memory.store.keyframes import KeyFrameDetector, Signature, signature
from memory.store.records import ChunkRecord, KeyFrameRecord
from memory.store.speech import SpeechBatcher, SpeechOptions, chunk_words
from memory.store.timing import StageTimes


def test_key_frames_on_new_text_and_new_scene_only():
    det = KeyFrameDetector()
    slide = draw("Photosynthesis\nPlants turn light into sugar")
    assert det.update(slide) is not None          # the first frame always
    assert det.update(slide.copy()) is None       # same picture
    noisy = np.clip(slide.astype(int) + np.random.default_rng(0).integers(-3, 4, slide.shape),
                    0, 255).astype(np.uint8)
    assert det.update(noisy) is None              # sensor noise is not a change
    assert det.update(draw("Photosynthesis\nPlants turn light into starch")) is not None
    assert det.update(draw("", (40, 90, 160))) is not None   # a text-free scene


def test_signature_round_trips_through_bytes():
    sig = signature(draw("hello"))
    back = Signature.from_bytes(sig.to_bytes())
    np.testing.assert_array_equal(back.histogram, sig.histogram)
    np.testing.assert_array_equal(back.thumbnail, sig.thumbnail)
    assert not KeyFrameDetector(last=back).changes(sig)


def test_words_go_to_the_chunk_holding_their_midpoint():
    chunks, _ = build_stream([LECTURE[0]])
    words = [Word("a", 0.2, 0.4), Word("b", 0.9, 1.3), Word("c", 1.6, 2.8), Word("z", 99, 100)]
    paired = chunk_words(chunks[:3], words)
    assert [[w.text for w in ws] for _, ws in paired] == [["a"], ["b"], ["c", "z"]]


class _RecordingASR:
    """A Transcriber that records the regions it is asked for (a fake of the Protocol)."""

    def __init__(self):
        self.calls: list[list[tuple[float, float]]] = []

    def transcribe(self, audio, offset=0.0):
        return self.transcribe_batch([(audio, offset)])[0]

    def transcribe_batch(self, items):
        self.calls.append([(o, o + len(a) / 16000) for a, o in items])
        return [Transcript((TranscriptSegment("word", o, o + len(a) / 16000),)) for a, o in items]


class _FixedVAD:
    def __init__(self, regions):
        self.regions = regions

    def detect(self, audio):
        return [SpeechRegion(a, min(b, len(audio) / 16000)) for a, b in self.regions
                if a < len(audio) / 16000]


def test_batches_wait_for_open_speech_and_never_lose_a_chunk():
    chunks, _ = build_stream(LECTURE)
    asr = _RecordingASR()
    # speech from 3 s to 9 s and from 27.5 s to 33 s (open when the 30 s batch is cut)
    batcher = SpeechBatcher(_FixedVAD([(3.0, 9.0), (27.5, 33.0)]), asr,
                            SpeechOptions(batch_seconds=30, max_batch_seconds=60),
                            workers=False)  # each batch heard before push returns
    out = []
    for c in chunks:
        out += batcher.push(c)
    assert [c.index for c, _ in out] == list(range(27))  # cut before the open region
    assert asr.calls == [[(2.8, 9.2)]]
    out += batcher.flush()
    assert [c.index for c, _ in out] == [c.index for c in chunks]


class _DetectOnly:
    """Silero without its streaming interface: the batcher's fallback path."""

    def __init__(self, vad):
        self.vad = vad

    def detect(self, audio):
        return self.vad.detect(audio)


@pytest.mark.slow
@pytest.mark.parametrize("streaming", [True, False])
def test_real_vad_and_whisper_transcribe_in_batches(streaming):
    from memory.models import SileroSpeechDetector, WhisperTranscriber, word_error_rate

    chunks, truth = build_stream(LECTURE[:2])
    timers = StageTimes()
    vad = SileroSpeechDetector() if streaming else _DetectOnly(SileroSpeechDetector())
    batcher = SpeechBatcher(vad, WhisperTranscriber(), SpeechOptions(batch_seconds=10),
                            timers)
    out = []
    for c in chunks:
        out += batcher.push(c)
    out += batcher.flush()
    assert [c.index for c, _ in out] == list(range(len(chunks)))
    heard = " ".join(w.text for _, ws in out for w in ws)
    said = " ".join(s["text"] for s in truth["sentences"])
    assert word_error_rate(said, heard) < 0.6  # eSpeak + tiny.en: poor, but recognisable
    first = truth["sentences"][-1]
    spans = [c.index for c, ws in out if any("evaporates" in w.text.lower() for w in ws)]
    assert spans and first["start"] - 1 <= spans[0] <= first["start"] + 2
    assert timers["asr"] > 0 and timers["vad"] > 0


def _chunk(i, words=(), keyframe=None, text=""):
    kf = KeyFrameRecord(i, i + 0.5, "", text) if keyframe else None
    return ChunkRecord(i, float(i), float(i + 1), tuple(words), keyframe, text, "", kf)


def test_segments_cut_at_scene_changes_pauses_and_length():
    seg = Segmenter(StoreOptions(min_segment_s=4, target_segment_s=12, max_segment_s=30), 0)
    closed = []
    for i in range(60):
        new = i in (0, 20, 22)  # 22 comes too soon after 20 to start a segment
        talking = (Word("x", i + 0.1, i + 0.99),) if i < 50 else ()
        closed += seg.add(_chunk(i, talking, i if new else None, f"slide {i}" if new else ""))
    closed += seg.flush()
    assert [(s.first_chunk, s.last_chunk) for s in closed] == [(0, 19), (20, 49), (50, 59)]
    assert closed[1].ocr_text == "slide 20\nslide 22"
    roller = ChapterRoller(StoreOptions(chapter_s=30, max_chapter_s=40), 0)
    chapters = [c for s in closed for c in roller.add(s)] + roller.flush()
    assert [(c.first_segment, c.last_segment) for c in chapters] == [(0, 1), (2, 2)]


def _silent_stream(seconds: int):
    from memory.media import Frame, VideoChunk

    image = draw("One slide")
    return [VideoChunk(i, float(i), float(i + 1), (Frame(i + 0.5, image),),
                       np.zeros(16000, np.float32)) for i in range(seconds)]


def test_a_file_batches_speech_by_the_file_lengths_and_live_by_the_short_ones():
    options = SpeechOptions(batch_seconds=10, max_batch_seconds=20, file_batch_seconds=25,
                            file_max_batch_seconds=40, grow_file_batches=False)
    # each buffer hears speech 3-9 s and 22.5-28 s after its start: the second region is
    # still open when a 25 s file batch is due, so that batch is cut before it (22 s)
    regions = [(3.0, 9.0), (22.5, 28.0)]
    for file, sizes_wanted in ((False, [10] * 6), (True, [22, 22])):
        asr = _RecordingASR()
        batcher = SpeechBatcher(_FixedVAD(regions), asr, options, workers=False, file=file)
        out, sizes = [], []
        for c in _silent_stream(60):
            ready = batcher.push(c)
            sizes += [len(ready)] if ready else []
            out += ready
        assert sizes == sizes_wanted
        out += batcher.flush()
        assert [c.index for c, _ in out] == list(range(60))


def test_a_files_batches_grow_with_where_they_start_so_whisper_starts_early():
    # A file's batch is as long as the media before it, from the live length to the file
    # length: from 0 s, 10, 10, 20, 40, 40 ... s. It depends only on where the batch
    # starts, so a file resumed at a batch boundary cuts the batches an unbroken run cut.
    options = SpeechOptions(batch_seconds=10, max_batch_seconds=20, file_batch_seconds=40,
                            file_max_batch_seconds=60)

    def sizes(chunks, file=True):
        batcher = SpeechBatcher(_FixedVAD([]), _RecordingASR(), options, workers=False,
                                file=file)
        got = [len(b.chunks) for c in chunks for b in batcher.push_batches(c)]
        return got + [len(b.chunks) for b in batcher.flush_batches()]

    stream = _silent_stream(200)
    assert sizes(stream) == [10, 10, 20, 40, 40, 40, 40]
    assert sizes(stream[80:]) == [40, 40, 40]
    assert sizes(stream[20:60]) == [20, 20]
    assert sizes(stream[:40], file=False) == [10] * 4  # live: the short batches throughout
    # a region still open when a batch is due moves the cut, and the next batch's length
    # follows from where that batch starts: from 0 s, 10 s are due at 10 s, speech runs
    # 8.5-12 s of each buffer, so the cut is at 8.5 s and the next batch (from 8.5 s)
    # is due 10 s later
    batcher = SpeechBatcher(_FixedVAD([(8.5, 12.0)]), _RecordingASR(), options,
                            workers=False, file=True)
    assert batcher.batch_lengths() == (40, 60)  # nothing buffered: the file pair
    cuts = [b.chunks[-1][0].end for c in stream[:40] for b in batcher.push_batches(c)]
    assert cuts[:2] == [8.0, 16.0]
    assert batcher.batch_lengths()[0] == min(40, batcher.pending[0].start)


def test_ingest_commits_in_file_batches_and_add_in_live_ones(tmp_path):
    from memory.store import MemoryModels, VideoMemory

    speech = SpeechOptions(batch_seconds=10, max_batch_seconds=20, file_batch_seconds=30,
                           file_max_batch_seconds=45)
    models = MemoryModels(vad=_FixedVAD([]), asr=_RecordingASR())
    chunks = _silent_stream(70)

    def versions(mem, feed):
        seen = []
        for c in feed:
            yield c
            seen.append(mem.version)
        versions.seen = seen

    # no workers: each batch is committed by the add that cut it (with workers, by a later
    # one); the file's batches grow from the live length to the file length (10, 10, 20,
    # then 30 s)
    options = StoreOptions(speech=speech, workers=False)
    mem = VideoMemory.create(tmp_path / "file", models, options)
    mem.ingest(versions(mem, chunks))
    assert sorted(set(versions.seen)) == [0, 10, 20, 40, 70]
    assert mem.version == 70
    mem.close()
    live = VideoMemory.create(tmp_path / "live", models, options)
    assert [live.add(c) for c in chunks[:30]].count(10) == 3  # a commit each 10 s
    live.ingest(versions(live, chunks[30:40]), live=True, finish=False)
    assert sorted(set(versions.seen)) == [30, 40]
    live.ingest(versions(live, chunks[40:]), finish=False)  # file batches from 40 s: 30 s
    assert sorted(set(versions.seen)) == [40, 70] and live.version == 70
    for c in chunks:  # after ingest, add is live again
        live.add(c)
    live.close()


def test_whisper_runs_beside_the_caller_and_batches_come_out_in_order():
    import threading

    gate = threading.Event()

    class _GatedASR(_RecordingASR):
        def transcribe_batch(self, items):
            assert gate.wait(timeout=60)
            return super().transcribe_batch(items)

    asr = _GatedASR()
    batcher = SpeechBatcher(_FixedVAD([(3.0, 9.0)]), asr,
                            SpeechOptions(batch_seconds=10, max_batch_seconds=20,
                                          queue_batches=2), workers=True)
    chunks = _silent_stream(35)
    try:
        got = [batcher.push_batches(c) for c in chunks[:25]]
        # batches cut at 10 and 20 s, neither heard yet: the caller went on
        assert not any(got)
        assert batcher.transcribing == 2
        gate.set()
        batches = [b for c in chunks[25:] for b in batcher.push_batches(c)]
        # the third batch's cut waits for the first: never more than two batches ahead
        assert batches and [c.index for c, _ in batches[0].chunks] == list(range(10))
        batches += batcher.flush_batches()
    finally:
        gate.set()
        batcher.close()
    assert [[c.index for c, _ in b.chunks] for b in batches] == \
        [list(range(a, min(a + 10, 35))) for a in (0, 10, 20, 30)]
    assert [b.anchor for b in batches] == [None] * 4  # each batch took every chunk
    assert len(asr.calls) == 4 and batcher.transcribing == 0
