"""The app's conversation handler, live source, upload checks, frontend flag and views,
in real simulated-time sessions with venus.testing fakes (no browser, no models)."""

from __future__ import annotations

import asyncio
import re

import numpy as np
import pytest

from demos.chat import chat_view, reply_markdown
from demos.conversation import TypedTurns
from demos.frontends import FrontendSpec, parse_frontend
from demos.labels import work_label
from demos.live import LiveSource
from demos.uploads import UploadError, check_upload
from demos.views import ConversationStrip, moments_html, timeline_html
from demos.work import work_html, work_rows
from memory import Moment
from memory.errors import VideoError
from venus import SimulatedClock
from venus.capabilities import builtin_capabilities
from venus.errors import ConfigError
from venus.events import (
    FloorAction,
    FloorActionTaken,
    MemoryUpdated,
    OverlapClassified,
    OverlapKind,
    SpeechQueued,
    SpeechStopped,
    WorkItemStateChanged,
    WorkState,
)
from venus.frontend import DelegationRequest
from venus.runtime import Session, SessionOptions
from venus.testing import FakeFrontend, FakeMemory, FakeMoment, FakeSpeechOutput, FakeVideoSource
from venus.timeline import Timeline

LECTURE = FakeMemory([
    FakeMoment(0, 10, "Acids and bases", "The pH scale runs from zero to fourteen.",
               "pH scale"),
    FakeMoment(10, 20, "Photosynthesis", "Plants turn light into sugar in the chloroplast.",
               "photosynthesis"),
])


def _answer(question: str, at: float) -> str:
    # As in the app, the "file" was ingested before the conversation: all of it is past.
    hits = LECTURE.search(question, k=1)
    return f"At {hits[0].start:g} seconds: {hits[0].transcript}" if hits else "Not seen yet."


def _session(turns: TypedTurns, seconds: int, script=None) -> Session:
    clock = SimulatedClock()
    return Session(turns, FakeVideoSource(seconds), clock=clock, memory=LECTURE,
                   capabilities=builtin_capabilities(), speech=FakeSpeechOutput(),
                   options=SessionOptions(drain_s=60.0), session_id="user")


def _typing(at: dict[int, str], turns_ref: list) -> dict:
    """A FakeFrontend script that types ``text`` into the wrapper at chunk ``index``."""
    def typer(text: str):
        def step(chunk, view):
            turns_ref[0].say(text)
            return FakeFrontend().default
        return step
    return {index: typer(text) for index, text in at.items()}


def test_typed_question_is_answered_from_memory_at_the_next_boundary():
    turns = TypedTurns(FakeFrontend(), _answer)
    turns.say("What is the pH scale?")
    session = _session(turns, 5)
    session.run()
    spoken = session.timeline.events(SpeechQueued)
    assert spoken[0].text == "At 0 seconds: The pH scale runs from zero to fourteen."
    assert session.speech.heard == [spoken[0].text]


def test_typing_while_it_answers_interrupts_and_changes_course():
    ref: list[TypedTurns] = []
    inner = FakeFrontend(_typing({3: "tell me about photosynthesis"}, ref))
    turns = TypedTurns(inner, _answer)
    ref.append(turns)
    turns.say("What is the pH scale? Explain it fully please, with every detail you have.")
    session = _session(turns, 12)
    # The first answer is long: still playing when the user types at chunk 3.
    session.speech.words_per_second = 1.0
    session.run()
    t = session.timeline
    assert t.last(OverlapClassified).kind is OverlapKind.INTERRUPTION
    assert FloorAction.YIELD_FLOOR in [e.action for e in t.events(FloorActionTaken)]
    stopped = t.events(SpeechStopped)[0]
    assert stopped.utterance_id == "u1" and stopped.heard_fraction < 1.0
    assert t.events(SpeechQueued)[-1].text.startswith("At 10 seconds: Plants")
    assert session.speech.heard[-1].startswith("At 10 seconds: Plants")


def test_summary_is_delegated_and_reaches_delivered_after_playback():
    turns = TypedTurns(FakeFrontend(), _answer)
    turns.say("summarize the whole video")
    session = _session(turns, 25)
    session.run()
    states = [e.state for e in session.timeline.events(WorkItemStateChanged)]
    assert states[0] is WorkState.QUEUED and states[-1] is WorkState.DELIVERED
    rows = work_rows(session.timeline.entries)
    assert rows[0].capability == "summarize_range" and rows[0].state is WorkState.DELIVERED
    assert "pH scale" in rows[0].result and not rows[0].can_cancel and not rows[0].can_retry
    assert rows[0].label.startswith("Summary of 0:00-") and rows[0].state_words == "Done"
    assert "user/w1" not in work_html(rows).split("data-item")[0]  # no session id shown


def test_file_mode_ranges_are_video_time_however_long_the_talk():
    # A 3:32 video watched, the conversation at session time 400 s: every range ends 3:32.
    ref: list[TypedTurns] = []

    def spoken_summary(chunk, view):  # the inner frontend delegates on its own
        return FakeFrontend().default.__class__(
            delegations=(__import__("venus").DelegationRequest.new(
                "summarize_range", {"start": 0.0, "end": view.time, "sentences": 2}),))

    inner = FakeFrontend({403: spoken_summary})
    turns = TypedTurns(inner, _answer, media_end=lambda: 20.0)
    ref.append(turns)
    turns.say("Quiz me on the lecture")
    clock = SimulatedClock()  # as in the app: the talk starts after the video, at 400 s
    timeline = Timeline("user")
    timeline.record(MemoryUpdated(1), time=400.0)
    session = Session(turns, LiveSource(clock, first_index=400, max_chunks=30), clock=clock,
                      memory=LECTURE, timeline=timeline,
                      capabilities=builtin_capabilities(), speech=FakeSpeechOutput(),
                      options=SessionOptions(pace=False, drain_s=60.0), session_id="user")
    session.run()
    rows = {r.capability: r for r in work_rows(session.timeline.entries, media_end=20.0)}
    assert rows["make_quiz"].arguments["end"] == 20.0
    assert rows["make_quiz"].label == "Quiz on 0:00-0:20"
    assert rows["summarize_range"].arguments["end"] == 20.0
    assert rows["summarize_range"].label == "Summary of 0:00-0:20"
    summary = next(e.event for e in session.timeline.entries if type(e.event).__name__ ==
                   "ResultReady" and e.event.item_id == rows["summarize_range"].item_id)
    assert "to 0:20" in summary.result.summary


def test_work_labels_are_plain_words():
    assert work_label("make_quiz", {"start": 0.0, "end": 435.0, "questions": 3},
                      media_end=212.0) == "Quiz on 0:00-3:32"
    assert work_label("summarize_range", {"start": None, "end": 900.0}) == \
        "Summary of 10:00-15:00"
    assert work_label("search_memory", {"query": "pH", "k": 5}) == "Search for “pH”"
    assert work_label("set_timer", {"seconds": 300, "message": "stretch"}) == \
        "Timer for 5 minutes: stretch"
    assert work_label("calculate", {"expression": "12 * 7"}) == "Work out 12 * 7"


def test_panel_cancel_reaches_the_harness_through_the_loop():
    ref: list[TypedTurns] = []

    def cancel_newest(chunk, view):
        if view.work:
            ref[0].request(DelegationRequest.cancel(view.work[0].item_id))
        return FakeFrontend().default

    turns = TypedTurns(FakeFrontend({2: cancel_newest}), _answer)
    ref.append(turns)
    turns.say("set a timer for 30 seconds")
    session = _session(turns, 6)
    session.run()
    rows = work_rows(session.timeline.entries)
    assert rows[0].capability == "set_timer" and rows[0].state is WorkState.CANCELLED
    assert rows[0].can_retry and not rows[0].can_cancel
    html = work_html(rows)
    assert "data-action='retry'" in html and "data-action='cancel' data-item='user/w1' disabled" \
        in html


def _seconds(hops):
    """The source's hops grouped into the seconds they make up (as the session's tally)."""
    from venus.frontend.base import DuplexFrame
    from venus.runtime.hops import merge_frames

    groups: dict[int, list] = {}
    for hop in hops:
        groups.setdefault(hop.index, []).append(DuplexFrame(hop))
    return [merge_frames(g).chunk for g in groups.values()]


def test_live_source_carries_pushed_frames_and_audio_and_silence_otherwise():
    clock = SimulatedClock()
    seen = []
    source = LiveSource(clock, first_index=31, on_chunk=seen.append, max_chunks=3)
    source.push_frame(np.full((12, 16, 3), 200, np.uint8))
    source.push_audio(48_000, (np.ones(24_000) * 1000).astype(np.int16))  # 0.5 s at 48 kHz

    async def take():
        return [c async for c in source]

    hops = clock.run(take())
    assert all(round(h.duration, 6) == 0.1 for h in hops) and len(hops) == 30
    chunks = _seconds(hops)
    assert [c.index for c in chunks] == [31, 32, 33] and chunks[0].start == 31.0
    assert len(chunks[0].frames) == 1 and chunks[0].has_audio
    # the audio pushed before the schedule began opens it, sample for sample, not padded
    assert 0.02 < float(np.abs(chunks[0].audio[:7000]).mean()) < 0.04
    assert not chunks[0].audio[8000:].any()
    assert not chunks[1].frames and not chunks[1].has_audio and not chunks[1].audio.any()
    assert len(seen) == 1 and seen[0].index == 31 and seen[0].duration == 1.0  # camera seconds


def test_live_source_hands_out_a_hop_as_soon_as_its_audio_is_in():
    """Audio arriving in the browser's half-second batches is handed out hop by hop as
    it arrives, never held for the next whole second, and a batch that follows on from
    the one before continues it sample for sample (arrival jitter moves nothing)."""
    clock = SimulatedClock()
    source = LiveSource(clock, max_chunks=2)

    async def take():
        async def mic():
            for i in range(4):  # 0.5 s batches, each arriving 30 ms late
                await clock.sleep_until(0.5 * (i + 1) + 0.03)
                source.push_audio(16_000, np.full(8_000, 0.1 * (i + 1), np.float32))
        task = asyncio.create_task(mic())
        out = []
        async for hop in source:
            out.append((round(hop.start, 2), hop.has_audio, clock.now()))
        await task
        return out

    hops = clock.run(take())
    assert [h[0] for h in hops] == [round(0.1 * i, 2) for i in range(20)]
    # until the first batch came (0.53 s) the hops kept the clock, without audio; from
    # then on every hop carries the microphone's audio
    assert [audio for _, audio, _ in hops] == [False] * 5 + [True] * 15
    lags = [now - (start + 0.1) for start, _, now in hops]
    assert max(lags) < 0.5 + 1e-6  # at most a batch behind, not a second and a batch
    assert source.gaps == 0


def test_a_stretch_no_audio_came_for_is_a_stamped_gap_not_padding():
    """The microphone stops for a second: those hops are gaps (no audio, stamped), handed
    out once the jitter allowance has passed, and the audio after them is not shifted
    into them (the axis keeps the clock's time)."""
    clock = SimulatedClock()
    source = LiveSource(clock, max_chunks=3)  # waits 0.6 s for late audio: a batch is 0.5 s
    source.push_audio(16_000, np.full(8_000, 0.1, np.float32))  # opens the schedule

    async def take():
        async def mic():
            await clock.sleep_until(2.0)  # nothing for [0.5, 1.5): the browser stalled
            source.push_audio(16_000, np.full(8_000, 0.2, np.float32))
        task = asyncio.create_task(mic())
        out = [(round(h.start, 2), h.has_audio) async for h in source]
        await task
        return out

    hops = dict(clock.run(take()))
    assert all(hops[round(0.1 * i, 2)] for i in range(5))
    assert not any(hops[round(0.5 + 0.1 * i, 2)] for i in range(10))  # the gap, stamped
    assert all(hops[round(1.5 + 0.1 * i, 2)] for i in range(5))
    # the stall's ten hops, and the last second's (the microphone sent nothing more)
    assert source.gaps == 20


def test_closed_live_source_ends_at_the_next_boundary():
    clock = SimulatedClock()
    source = LiveSource(clock)

    async def take():
        out = []
        async for chunk in source:
            out.append(chunk)
            if len(out) == 2:
                source.close()
        return out

    assert len(clock.run(take())) == 2


def test_an_idle_live_source_sleeps_until_an_input_and_numbers_by_the_clock():
    clock = SimulatedClock()
    idle = {"now": True}
    source = LiveSource(clock, first_index=100, max_chunks=80, idle=lambda: idle["now"],
                        quiet_after=3)

    async def take():
        async def user():  # nothing for a while, then a word into the mic, then the end
            await clock.sleep(30.5)
            source.push_audio(16_000, np.full(8_000, 0.1, np.float32))
            await clock.sleep(29.5)
            source.close()
        task = asyncio.create_task(user())
        out = [c async for c in source]
        await task
        return out

    chunks = [(c.index, c.start, c.has_audio) for c in _seconds(clock.run(take()))]
    assert chunks == [(100, 100.0, False), (101, 101.0, False), (102, 102.0, False),
                      (130, 130.0, True),  # woken at 30.5 s: the second its audio began in
                      (131, 131.0, False), (132, 132.0, False), (133, 133.0, False)]
    assert source.sleeps == 2 and clock.now() == 60.0  # asleep again until closed

    busy = LiveSource(SimulatedClock(), max_chunks=8, idle=lambda: False, quiet_after=3)

    async def take_busy():
        return [c async for c in busy]
    hops = busy.clock.run(take_busy())
    # something is said or worked on: the schedule keeps its beat
    assert len(_seconds(hops)) == 8 and busy.sleeps == 0


def test_an_input_before_the_sleep_keeps_the_schedule_awake():
    clock = SimulatedClock()
    source = LiveSource(clock, max_chunks=6, idle=lambda: True, quiet_after=2)

    async def take():
        out = []
        async for hop in source:
            if out and out[-1] == hop.index:
                continue
            out.append(hop.index)
            if hop.index == 1:
                source.wake()  # a typed turn queued just as it would go to sleep
            if hop.index == 3:
                source.close()
        return out

    assert clock.run(take()) == [0, 1, 2, 3] and source.sleeps == 0


@pytest.mark.parametrize("name, body, match", [
    ("notes.txt", b"hello", "not a video file"),
    ("big.mp4", b"0" * 3 * 2**20, "over this app's 2 MB limit"),
])
def test_upload_refused_by_type_and_size(tmp_path, name, body, match):
    path = tmp_path / name
    path.write_bytes(body)
    with pytest.raises(UploadError, match=match):
        check_upload(path, max_mb=2)


def test_text_file_renamed_mp4_is_refused_by_the_decoder(tmp_path):
    path = tmp_path / "lecture.mp4"
    path.write_text("this is not a video\n" * 50)
    with pytest.raises(VideoError, match="lecture.mp4"):
        check_upload(path, max_mb=10)
    with pytest.raises(UploadError, match="no file was uploaded"):
        check_upload(None, max_mb=10)


def test_frontend_flag(tmp_path):
    assert parse_frontend("embedded") == FrontendSpec()
    spec = parse_frontend("openai:http://127.0.0.1:9/v1", model="qwen")
    assert (spec.kind, spec.target, spec.model) == ("openai", "http://127.0.0.1:9/v1", "qwen")
    remote = spec.factory()(None)  # built without connecting; it speaks at the first chunk
    assert (remote.name, remote.config.model) == ("openai_compatible", "qwen")
    remote.close()
    assert parse_frontend(f"transformers:{tmp_path}").target == str(tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        parse_frontend(f"transformers:{tmp_path / 'missing'}")
    for bad in ("gpt", "openai:", "transformers"):
        with pytest.raises(ConfigError, match="unknown frontend"):
            parse_frontend(bad)


def test_chat_shows_the_whole_reply_at_once_with_its_times_as_chips():
    turns = TypedTurns(FakeFrontend(), lambda q, at: "At 0:42-0:50 it was said: pH runs 0-14.")
    turns.say("What is the pH scale?")
    session = _session(turns, 2)
    session.options = SessionOptions(drain_s=0.0)
    session.run()
    entries = session.timeline.entries
    queued = next(i for i, e in enumerate(entries) if isinstance(e.event, SpeechQueued))
    view = chat_view(entries[:queued + 1])  # before a single word was played
    assert view.messages[0] == {"role": "user", "content": "What is the pH scale?"}
    reply = view.messages[1]["content"]
    assert reply.startswith('At [0:42-0:50](#venus-t=42.00 "Play from 0:42") it was said')
    assert [c.start for c in view.cited] == [42.0]
    cut = chat_view(entries).messages[1]["content"]  # the session ended mid-reply
    assert cut.endswith("*(interrupted)*") and "~~" in cut


def test_reply_markdown_escapes_text_and_adds_chips_for_cited_moments():
    from demos.results import Cited

    md = reply_markdown("Acids *donate* [ions] at 1:05.", [Cited(65, 70), Cited(120, 130)])
    assert r"\*donate\*" in md and r"\[ions\]" in md
    assert md.count("#venus-t=65.00") == 1 and md.endswith('"Play from 2:00")')


def test_timeline_strip_folds_quiet_seconds_so_an_idle_page_does_not_change():
    ref: list[TypedTurns] = []
    turns = TypedTurns(FakeFrontend(_typing({2: "and photosynthesis?"}, ref)), _answer)
    ref.append(turns)
    turns.say("What is the pH scale? Explain it fully please, with every detail you have.")
    session = _session(turns, 40)
    session.speech.words_per_second = 1.0
    session.run()
    entries = session.timeline.entries
    strip = timeline_html(entries, origin=0.0, relative=True)
    assert "interruption" in strip and "venus-both" in strip and ">reply<" in strip
    assert "+0:0" in strip and ">L<" not in strip
    # the last seconds are quiet: one open box, so more of them render the same HTML
    feed, last = ConversationStrip(), []
    for entry in entries:
        feed.feed([entry])
        last.append(feed.html())
    assert last[-1] == last[-5] and last[-1].count("venus-run") >= 1
    assert timeline_html(entries) == feed.html()  # incremental = all at once


def test_timeline_strip_shows_the_seconds_a_sleeping_schedule_skipped_as_quiet():
    from venus.events import ChunkReceived, UserWordsTranscribed
    from venus.timeline import Timeline

    timeline = Timeline("tab", now=lambda: 0.0)
    for second in (0, 1, 2, 3):  # a question, then calm seconds, then asleep until 0:18
        timeline.record(ChunkReceived(second, second, second + 1, False, 0), time=second + 1)
        if second == 1:
            timeline.record(UserWordsTranscribed("What is the pH scale?", 1.0, 2.0),
                            time=2.0)
    timeline.record(ChunkReceived(18, 18.0, 19.0, False, 0), time=19.0)
    timeline.record(UserWordsTranscribed("And acids?", 18.0, 19.0), time=19.0)
    timeline.record(ChunkReceived(19, 19.0, 20.0, False, 0), time=20.0)
    text = re.sub(r"<[^>]+>", " ", timeline_html(timeline.entries).split("venus-legend")[0])
    assert re.findall(r"(quiet|you)\s+(\S+)", text) == [
        ("quiet", "0:00–0:01"), ("you", "0:01"), ("quiet", "0:02–0:18"), ("you", "0:18"),
        ("quiet", "0:19")]


def test_moments_html_seeks_the_player_with_thumbnails_served_as_files(tmp_path):
    from PIL import Image

    frame = tmp_path / "k.jpg"
    Image.new("RGB", (320, 180), "navy").save(frame)
    html = moments_html([Moment(62.0, 70.0, 0.9, "The <pH> scale", keyframe=str(frame))],
                        "cited")
    assert "data-seek='62.00'" in html and ">1:02<" in html
    assert f"src='gradio_api/file={frame}'" in html and "base64" not in html
    assert "&lt;pH&gt;" in html and "Nothing" in moments_html([])


def test_the_loop_never_waits_for_the_browser():
    # The live source must not block the session: an idle tab still gets its cadence.
    clock = SimulatedClock()
    turns = TypedTurns(FakeFrontend(), _answer)
    session = Session(turns, LiveSource(clock, max_chunks=4), clock=clock,
                      options=SessionOptions(pace=False, drain_s=0.0))
    summary = session.run()
    assert summary.chunks == 4 and asyncio.iscoroutinefunction(session.arun)


def test_venus_app_flags_are_documented_and_a_bad_frontend_fails_before_serving(capsys):
    from venus.cli import main

    with pytest.raises(SystemExit):
        main(["app", "--help"])
    usage = capsys.readouterr().out
    for flag in ("--share", "--server-name", "--server-port", "--frontend", "transformers:",
                 "openai:", "--max-upload-mb", "--auth", "--auth-file", "--ingest-workers",
                 "--max-tabs", "--analytics"):
        assert flag in usage
    assert main(["app", "--frontend", "gpt"]) == 3
    assert "unknown frontend 'gpt'" in capsys.readouterr().err
    assert main(["app", "--auth", "ada"]) == 3
    assert "--auth: expected USER:PASS" in capsys.readouterr().err


def test_auth_flags_and_file(tmp_path):
    from venus.cli.app import parse_auth

    users = tmp_path / "users.txt"
    users.write_text("# who may log in\nada:lovelace\n\n grace : hopper:cobol\n")
    assert parse_auth(["alan:turing"], str(users)) == [
        ("alan", "turing"), ("ada", "lovelace"), ("grace", " hopper:cobol")]
    with pytest.raises(ConfigError, match="cannot read the auth file"):
        parse_auth([], str(tmp_path / "missing.txt"))
    users.write_text("ada\n")
    with pytest.raises(ConfigError, match=r"users.txt:1: expected USER:PASS"):
        parse_auth([], str(users))


def test_a_reply_starts_when_its_first_audio_is_ready_not_at_the_next_hop():
    """The app's loop waits for the next hop's audio and, beside it, for the next reply's
    first audio (`AudioSpeechOutput.first_audio`): synthesized mid-hop, the reply starts
    then (`Session.poll_output`), not when the next hop comes (up to 0.1 s later)."""
    from concurrent.futures import Future
    from types import SimpleNamespace

    from demos.runner import Runner

    clock = SimulatedClock()
    source = LiveSource(clock, max_chunks=1)
    ready: Future = Future()
    started: list[float] = []
    runner = SimpleNamespace(
        source=source, session=SimpleNamespace(poll_output=lambda: started.append(clock.now())),
        speech=SimpleNamespace(first_audio=lambda: None if ready.done() else ready),
        _to_page=lambda: None)

    async def take():
        async def mic():  # the page's 20 ms frames, each when its last sample is due
            for i in range(50):
                await clock.sleep_until(0.02 * (i + 1))
                source.push_audio(16_000, np.full(320, 0.01, np.float32))
                if i == 11:
                    ready.set_result(None)  # the first piece is synthesized at 0.24 s
        task = asyncio.create_task(mic())
        ends = [round(hop.end, 2) async for hop in Runner._hops(runner)]
        await task
        return ends

    assert clock.run(take()) == [round(0.1 * (i + 1), 2) for i in range(10)]
    assert started == [pytest.approx(0.24)]  # at once, not at the hop's end (0.3 s)
