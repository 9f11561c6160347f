"""Key frames in an image model's space: a VideoMemory with a tiny random CLIP or SigLIP
(built from its config, saved, loaded by the real path) and the real VAD, Whisper, OCR,
MiniLM and FAISS. Pictures are searched by text and by example image, checked against
brute-force numpy over the same model's vectors, under the causal cutoff, after reopening,
after a kill and resume, and for a memory built before the image model was plugged in."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest
from memory_stream import LECTURE, build_stream
from tiny_image_models import BUILDERS

from memory import ModelUnavailableError, StoreError
from memory.media import Frame, VideoChunk
from memory.models import TransformersImageEmbedder
from memory.store import MemoryModels, MemoryReader, VideoMemory
from memory.store.pictures import CHECKPOINT, NO_IMAGE_MODEL

pytestmark = pytest.mark.slow

SCENE_S = 6


def scene(seed: int) -> np.ndarray:
    """A text-free picture: coloured blocks, different for every seed."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, (9, 16, 3), dtype=np.uint8)
    return np.kron(blocks, np.ones((40, 40, 1), np.uint8))  # 360 x 640


def stream() -> tuple[list[VideoChunk], list[dict]]:
    """Six silent text-free scenes of SCENE_S seconds, then a spoken slide (14 s)."""
    chunks, scenes = [], []
    for n in range(6):
        image, start = scene(n), len(chunks)
        scenes.append({"image": image, "start": float(start), "end": float(start + SCENE_S)})
        for i in range(start, start + SCENE_S):
            chunks.append(VideoChunk(i, float(i), float(i + 1), (Frame(i + 0.5, image),),
                                     np.zeros(16_000, np.float32)))
    shift = len(chunks)
    for c in build_stream(LECTURE[:1])[0]:
        chunks.append(VideoChunk(c.index + shift, c.start + shift, c.end + shift,
                                 tuple(Frame(f.time + shift, f.image) for f in c.frames), c.audio))
    return chunks, scenes


@pytest.fixture(scope="module")
def text_models():
    return MemoryModels()


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def embedder(request, tmp_path_factory):
    path = BUILDERS[request.param](tmp_path_factory.mktemp(request.param) / "tiny")
    return TransformersImageEmbedder(path)


def with_images(text_models: MemoryModels, embedder) -> MemoryModels:
    return MemoryModels(text_models.embedder, text_models.vad, text_models.asr, text_models.ocr,
                        image_embedder=embedder)


@pytest.fixture(scope="module")
def built(tmp_path_factory, text_models, embedder):
    chunks, scenes = stream()
    mem = VideoMemory.create(tmp_path_factory.mktemp("mem") / "m",
                             models=with_images(text_models, embedder))
    mem.ingest(chunks)
    return mem, chunks, scenes


def _stored(mem):
    rows = mem.db.keyframe_vectors()
    return np.array([r[0] for r in rows]), np.vstack([r[3] for r in rows])


def test_every_key_frame_is_embedded_as_it_commits(built, embedder):
    mem, _, scenes = built
    ids, vectors = _stored(mem)
    assert len(ids) == mem.stats()["keyframes"] == 7  # six scenes and the slide
    assert mem.stats()["stage_seconds"]["image_embed"] > 0
    np.testing.assert_allclose(vectors[:6], embedder.embed_images([s["image"] for s in scenes]),
                               atol=1e-5)
    assert (mem.directory / CHECKPOINT).is_file()


def test_search_by_example_image_matches_brute_force_numpy(built, embedder, tmp_path):
    from PIL import Image

    mem, _, scenes = built
    ids, vectors = _stored(mem)
    for n in (0, 3, 5):
        query = scenes[n]["image"]
        hits = mem.search_image(query, k=4)
        sims = vectors @ embedder.embed_images([query])[0]
        order = np.argsort(-sims, kind="stable")[:4]
        assert [h.keyframe for h in hits] == [
            str(mem.directory / f"keyframes/{i:08d}.jpg") for i in ids[order]]
        np.testing.assert_allclose([h.score for h in hits], sims[order], atol=1e-5)
        best = hits[0]  # the scene itself, with the times it was on screen
        assert (best.start, best.end) == (scenes[n]["start"], scenes[n]["end"])
        assert best.score == pytest.approx(1.0, abs=1e-4) and best.level == "chunk"
    Image.fromarray(scenes[2]["image"]).save(tmp_path / "q.png")
    for query in (tmp_path / "q.png", str(tmp_path / "q.png"), Image.open(tmp_path / "q.png")):
        assert mem.search_image(query, k=1)[0].start == scenes[2]["start"]


def test_text_questions_search_the_pictures_fused_with_the_text(built, embedder):
    mem, _, scenes = built
    _, vectors = _stored(mem)
    for query in ("a red car on the street", "the blue ocean", "what was on the screen"):
        hits = mem.search(query, k=10)
        sims = vectors[:6] @ embedder.embed_texts([query])[0]  # the text-free scenes
        by_numpy = [scenes[i]["start"] for i in np.argsort(-sims, kind="stable")]
        # Text-free scenes have no text: the image model's ranking is their only one.
        found = [h.start for h in hits if h.end <= scenes[-1]["end"]]
        assert found == by_numpy
        assert all(h.keyframe.endswith(f"{int(h.start):08d}.jpg") for h in hits
                   if h.end <= scenes[-1]["end"])
    slide = mem.search("photosynthesis chlorophyll", k=1)[0]  # text answers still lead
    assert slide.start >= scenes[-1]["end"] and "Photosynthesis" in slide.ocr_text


def test_the_causal_cutoff_holds_for_pictures(built):
    mem, _, scenes = built
    at = scenes[3]["start"] + 2.0  # two seconds into the fourth scene
    for n in range(6):
        hits = mem.search_image(scenes[n]["image"], k=10, before=at)
        assert hits and all(h.end <= at + 1e-6 for h in hits)
        assert (hits[0].score > 0.999) == (n <= 3)  # later scenes are not seen yet
    open_stretch = [h for h in mem.search("what was on the screen", k=10, before=at)
                    if h.level == "chunk"]
    assert open_stretch and open_stretch[0].end <= at + 1e-6
    assert open_stretch[0].keyframe.endswith(f"{int(scenes[3]['start']):08d}.jpg")
    assert all(h.end <= at + 1e-6 for h in mem.search("the blue ocean", k=10, before=at))
    window = mem.search_image(scenes[1]["image"], k=10, start=scenes[2]["start"] + 1,
                              end=scenes[3]["start"] + 1)
    assert sorted(h.start for h in window) == [scenes[2]["start"], scenes[3]["start"]]


def test_reopen_and_a_lost_checkpoint_give_identical_results(built, text_models, embedder,
                                                             tmp_path):
    mem, _, scenes = built
    mem.checkpoint()
    copy = tmp_path / "copy"
    shutil.copytree(mem.directory, copy)
    queries = [s["image"] for s in scenes[:3]]

    def spans(m):
        return [[(h.start, h.end, round(h.score, 5)) for h in m.search_image(q, k=5)]
                for q in queries]

    expected = spans(mem)
    again = VideoMemory.open(copy, models=with_images(text_models, embedder))
    assert spans(again) == expected
    again.close()
    (copy / CHECKPOINT).unlink()
    reader = MemoryReader.open(copy, models=with_images(text_models, embedder))
    assert spans(reader) == expected  # rebuilt from SQLite; a reader writes nothing
    assert not (copy / CHECKPOINT).exists()
    reader.close()



class _Killed(Exception):
    pass


def _dies_once_committed(chunks, n, mem):
    """The chunks, dying at the first one from ``n`` on once a key frame's vector is
    committed. Whisper hears a batch beside the caller, so from ``n`` on this waits for
    the batches being heard (the next chunk's push commits them): where it dies does not
    depend on how fast the machine is."""
    for i, c in enumerate(chunks):
        if i >= n and mem.db.keyframe_vectors():
            raise _Killed
        if i >= n:
            for job in list(mem._pipeline.speech._inflight):
                job.heard.result()
        yield c


def test_a_killed_ingest_resumes_with_the_same_vectors(built, text_models, embedder, tmp_path):
    full, chunks, _ = built
    models = with_images(text_models, embedder)
    mem = VideoMemory.create(tmp_path / "m", models=models)
    with pytest.raises(_Killed):  # live (30 s) batches: the first one commits after chunk 33
        mem.ingest(_dies_once_committed(chunks, 33, mem), live=True)
    assert 0 < len(mem.db.keyframe_vectors()) < 7
    mem.db.close()  # the process dies: nothing else is written
    mem._writer.release()
    resumed = VideoMemory.open(tmp_path / "m", models=models)
    resumed.ingest(chunks)
    ids, vectors = _stored(resumed)
    full_ids, full_vectors = _stored(full)
    np.testing.assert_array_equal(ids, full_ids)
    np.testing.assert_allclose(vectors, full_vectors, atol=1e-5)


def test_an_older_memory_gets_its_key_frames_embedded_on_open(built, text_models, embedder,
                                                              tmp_path):
    _, chunks, scenes = built
    plain = VideoMemory.create(tmp_path / "m", models=text_models)
    plain.ingest(chunks[:26])
    assert not plain.db.keyframe_vectors()
    with pytest.raises(ModelUnavailableError, match="TransformersImageEmbedder"):
        plain.search_image(scenes[0]["image"])
    plain.close()
    reader = MemoryReader.open(tmp_path / "m", models=with_images(text_models, embedder))
    with pytest.raises(StoreError, match="no image vectors yet.*VideoMemory.open"):
        reader.search_image(scenes[0]["image"])
    reader.close()
    mem = VideoMemory.open(tmp_path / "m", models=with_images(text_models, embedder))
    assert len(mem.db.keyframe_vectors()) == mem.stats()["keyframes"]
    hit = mem.search_image(scenes[1]["image"], k=1)[0]  # embedded from its stored JPEG
    assert hit.start == scenes[1]["start"] and hit.score > 0.9
    mem.ingest(chunks)  # the rest is embedded as it commits
    assert len(mem.db.keyframe_vectors()) == 7


def test_another_image_model_is_refused_with_the_fix(built, text_models, tmp_path):
    mem, _, scenes = built
    other = TransformersImageEmbedder(BUILDERS["siglip" if mem.models.image_embedder.family
                                               == "clip" else "clip"](tmp_path / "other"))
    if other.dim == mem.models.image_embedder.dim:
        pytest.skip("both tiny models have the same width")
    mem.checkpoint()
    shutil.copytree(mem.directory, tmp_path / "copy")
    again = VideoMemory.open(tmp_path / "copy", models=with_images(text_models, other))
    with pytest.raises(StoreError, match="embedded as .*-d vectors.*same image model"):
        again.search_image(scenes[0]["image"])


@pytest.fixture(scope="module")
def plain(tmp_path_factory, text_models):
    """The same stream ingested with no image model at all."""
    mem = VideoMemory.create(tmp_path_factory.mktemp("plain") / "m", models=text_models)
    mem.ingest(stream()[0])
    return mem


QUERIES = ("a red car on the street", "what was on the screen", "photosynthesis chlorophyll",
           "plants turn light into sugar")


def test_a_memory_without_an_image_model_is_as_before(plain, built, text_models, tmp_path):
    assert not plain.db.keyframe_vectors() and not (plain.directory / CHECKPOINT).exists()
    assert "image_embed" not in plain.stats()["stage_seconds"]
    with pytest.raises(ModelUnavailableError) as err:
        plain.search_image(stream()[1][0]["image"])
    assert str(err.value) == NO_IMAGE_MODEL and "TransformersImageEmbedder(" in NO_IMAGE_MODEL
    # The memory built with an image model, opened without one: its vectors are unused and
    # every search is the plain memory's.
    mem = built[0]
    mem.checkpoint()
    shutil.copytree(mem.directory, tmp_path / "copy")
    blind = MemoryReader.open(tmp_path / "copy", models=text_models)

    def spans(m):
        return [[(h.start, h.end, h.level, h.text, round(h.score, 6)) for h in m.search(q, k=8)]
                for q in QUERIES]

    assert spans(blind) == spans(plain)
    blind.close()


def test_reopened_without_its_image_model_it_names_the_model(built, text_models, tmp_path,
                                                             caplog):
    mem, _, scenes = built
    mem.checkpoint()
    shutil.copytree(mem.directory, tmp_path / "copy")
    call = f"TransformersImageEmbedder({mem.models.image_embedder.model_path!r})"
    with caplog.at_level(logging.WARNING, logger="memory.store.pictures"), \
            caplog.at_level(logging.WARNING, logger="memory.store.reader"):
        blind = VideoMemory.open(tmp_path / "copy", models=text_models)
    assert any(f"MemoryModels(image_embedder={call})" in r.getMessage() for r in caplog.records)
    with pytest.raises(ModelUnavailableError) as err:
        blind.search_image(scenes[0]["image"])
    assert f"were embedded by {call}" in str(err.value)
    assert f"pass MemoryModels(image_embedder={call})" in str(err.value)
    reply = blind.answer("What was on the screen at 0:05?").text
    assert reply.endswith(str(err.value))
    blind.close()


def test_a_visual_question_without_an_image_model_says_what_to_plug_in(plain, built):
    # Text-free scenes until 0:36, then a slide: the slide is no reply to these.
    for question in ("What was on the screen at 0:05?", "What did you see at 0:03?",
                     "Which picture was shown at 0:01?"):
        reply = plain.answer(question).text
        assert reply.endswith(NO_IMAGE_MODEL), reply
        assert NO_IMAGE_MODEL not in built[0].answer(question).text
    for question in ("What turns light into sugar?", "What did the slide show about plants?"):
        assert NO_IMAGE_MODEL not in plain.answer(question).text  # spoken, or screen text
