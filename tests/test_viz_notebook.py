"""venus.notebook: the helpers the teaching notebooks use, on real sessions and models."""

from __future__ import annotations

import io
import sys

import matplotlib
import numpy as np
import pytest
from PIL import Image

import venus.notebook as vn
from memory import Answer, Moment
from memory.errors import MissingExtraError
from venus import (
    CapabilityContext,
    Decision,
    DelegationRequest,
    Session,
    SimulatedClock,
    capability,
)
from venus.events import ControlToken, ControlTokenEmitted
from venus.notebook._extras import require
from venus.testing import FakeFrontend, FakeSpeechOutput, FakeVideoSource

matplotlib.use("Agg")


def test_exported_names_are_all_defined():
    assert sorted(vn.__all__) == sorted(set(vn.__all__))
    for name in vn.__all__:
        assert getattr(vn, name) is not None


def test_missing_extra_names_the_notebooks_extra():
    with pytest.raises(MissingExtraError, match=r"realtime-venus\[notebooks\]"):
        require("no_such_plotting_library_xyz")
    assert require("json") is sys.modules["json"]


# -- answers and moments as HTML --------------------------------------------------------
def _moment(tmp_path, start=12.0, end=20.0, with_frame=True) -> Moment:
    frame = None
    if with_frame:
        frame = tmp_path / f"kf{start:.0f}.jpg"
        Image.new("RGB", (32, 18), "red").save(frame)
    return Moment(start, end, 0.5, "summary", transcript="Chlorophyll absorbs <red> light.",
                  ocr_text="Photosynthesis", keyframe=str(frame) if frame else None)


def test_answer_html_shows_times_words_and_inlined_key_frame(tmp_path):
    answer = Answer("What is absorbed?", "At 0:12-0:20 it was said ...",
                    (_moment(tmp_path), _moment(tmp_path, 30, 40, with_frame=False)), asked_at=65.0)
    page = vn.answer_html(answer)
    assert "[0:12-0:20]" in page and "[0:30-0:40]" in page
    assert "asked at 1:05" in page
    assert "&lt;red&gt;" in page and "<red>" not in page  # user text is escaped
    assert page.count("data:image/jpeg;base64,") == 1  # only the moment that has a frame


def test_moments_html_states_the_cutoff(tmp_path):
    page = vn.moments_html([_moment(tmp_path)], cutoff=30.0)
    assert "asked at 0:30" in page and "latest cited end 0:20" in page
    assert "No moments found" in vn.moments_html([], cutoff=5.0)


def test_tables_show_values_as_text_and_escape_them():
    page = vn.table_html([{"what": "<kept>", "seconds": 1.23456, "none": None}], caption="stats")
    assert "<th style='text-align:left'>what</th>" in page and "&lt;kept&gt;" in page
    assert "1.23" in page and "1.2345" not in page and "<td style='text-align:left'>-</td>" in page
    assert "stats" in page and "none" in vn.table_html([], caption="empty")


def test_said_beside_heard_pairs_each_script_sentence_with_the_words_in_its_time():
    from memory.evidence import SAID, SHOWN, Evidence

    heard = [Evidence(SAID, "adding hydrogen", 0.2, 2.0), Evidence(SHOWN, "Acids", 0.0, 9.0),
             Evidence(SAID, "a pH bill seven", 3.1, 5.0)]
    script = [{"start": 0.0, "end": 2.5, "text": "Acids donate hydrogen."},
              {"start": 3.0, "end": 5.0, "text": "A pH below seven."},
              {"start": 6.0, "end": 8.0, "text": "Nobody heard this."}]
    page = vn.said_and_heard_html(script, heard)
    assert page.index("Acids donate hydrogen.") < page.index("adding hydrogen") \
        < page.index("A pH below seven.") < page.index("a pH bill seven")
    assert "(nothing)" in page and "Acids</td>" not in page  # slide text is not speech


def test_key_frames_are_shown_once_each_with_their_time(tmp_path):
    frame = _moment(tmp_path)
    page = vn.keyframes_html([frame, frame, _moment(tmp_path, 30, 40, with_frame=False)])
    assert page.count("data:image/jpeg;base64,") == 1 and "0:12" in page
    assert "No key frames" in vn.keyframes_html([])


def test_audio_players_are_labelled_and_inline():
    page = vn.audio_html("the microphone", np.zeros(8000), rate=16000)
    assert "the microphone" in page and "(0.5 s)" in page
    assert "data:audio/wav;base64," in page


# -- figures ----------------------------------------------------------------------------
def test_recall_heatmap_orders_depths_and_annotates_cells():
    recall = {"slide": {"1": 1.0, "0": 1.0, "0.5": 0.0}, "visual": {"0": 0.0, "0.5": 1.0}}
    fig = vn.recall_heatmap(recall, title="recall@5")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0%", "50%", "100%"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["slide", "visual"]
    cells = [t.get_text() for t in ax.texts]
    assert cells == ["1.00", "0.00", "1.00", "0.00", "1.00", "-"]
    fig.savefig(io.BytesIO(), format="png")


def test_scaling_figure_plots_each_run_and_the_synthetic_point():
    runs = [{"video_seconds": 600, "x_realtime": 9.0, "query_ms_p95": 20.0, "peak_rss_mb": 900,
             "synthetic_hours": 10, "query_ms_p95_10h": 40.0},
            {"video_seconds": 300, "x_realtime": 8.0, "query_ms_p95": 15.0, "peak_rss_mb": 800}]
    fig = vn.scaling_figure(runs)
    speed, latency, ram = fig.axes[:3]
    assert list(speed.lines[0].get_xdata()) == [5.0, 10.0]  # sorted by length
    [synthetic] = [line for line in latency.lines if line.get_label().startswith("synthetic")]
    assert list(synthetic.get_xdata()) == [600.0]  # 10 h, in minutes
    assert list(latency.lines[0].get_ydata()) == [15.0, 20.0]  # no p50 given: the p95
    assert all(line.get_linestyle() == "None" for line in speed.lines + ram.lines)  # not joined
    assert list(ram.lines[0].get_ydata()) == [800, 900]


def _glossary_session(tmp_path, table=None):
    def define(term: str) -> str:
        """Look a term up."""
        return f"{term}: a word"

    @capability(timeout=120)
    async def slow(topic: str, context: CapabilityContext) -> str:
        """Slow search."""
        await context.clock.sleep(75)
        return f"examples about {topic}"

    script = {2: Decision(ControlToken.SPEAK, speech="Hello there.",
                          delegations=(DelegationRequest.new("define", {"term": "atom"}),)),
              5: Decision(delegations=(DelegationRequest.new("slow", {"topic": "acids"}),))}
    speech = FakeSpeechOutput()
    session = Session(FakeFrontend(script), FakeVideoSource(100), clock=SimulatedClock(),
                      capabilities=[define, slow], speech=speech, session_id="t")
    if table is not None:
        session.timeline.subscribe(table.on_entry)
    session.run()
    return session, speech


def test_timeline_figure_draws_tokens_and_turn_lanes(tmp_path):
    session, _ = _glossary_session(tmp_path)
    audio = np.zeros(16000 * 100, np.float32)
    audio[16000 * 3: 16000 * 4] = 0.5
    fig = vn.timeline_figure(session.timeline, input_audio=audio, output_audio=audio,
                             title="glossary")
    mic, voice, control = fig.axes
    tokens = [e for e in session.timeline if isinstance(e.event, ControlTokenEmitted)]
    assert len(control.lines) == len(tokens) == 100
    assert mic.collections and voice.collections  # the two envelopes
    fig.savefig(io.BytesIO(), format="png")


# -- the live work-item table -----------------------------------------------------------
def test_work_item_table_follows_the_lifecycle_and_the_revision(tmp_path):
    table = vn.WorkItemTable("items")
    _, speech = _glossary_session(tmp_path, table)
    fresh, stale = table.rows.values()
    assert fresh.states == ["queued", "running", "completed", "delivering", "delivered"]
    assert fresh.verdict.startswith("deliver")
    assert stale.states == fresh.states
    assert stale.verdict.startswith("revise") and stale.spoken.startswith("About what you asked")
    assert speech.heard[-1] == stale.spoken
    page = table.to_html()
    assert page.count("<tr>") == 3 and "delivered" in page


def test_work_item_table_widget_re_renders_on_each_change(tmp_path):
    table = vn.WorkItemTable()
    assert "no work delegated yet" in table.widget.value
    _glossary_session(tmp_path, table)
    assert "t/w2" in table.widget.value and "revise" in table.widget.value


# -- benchmark command and overlap scenarios ----------------------------------------------
def test_bench_command_maps_options_to_flags(tmp_path):
    cmd = vn.bench_command("memory", {"minutes": 0.5, "depths": [0, 1], "hours_synthetic": 1,
                                      "skip": None, "quiet": False, "fast": True}, tmp_path / "m.json")
    assert cmd[1:5] == ["-m", "venus", "bench", "memory"]
    assert cmd[5:] == ["--minutes", "0.5", "--depths", "0,1", "--hours-synthetic", "1", "--fast",
                       "--json", str(tmp_path / "m.json")]


def test_run_benchmark_reports_a_failed_run(tmp_path):
    out = io.StringIO()
    with pytest.raises(vn.BenchmarkFailed, match="exited with status 2: unrecognized "
                       "arguments: --no-such-flag 1$"):  # the command's own sentence
        vn.run_benchmark("memory", {"no_such_flag": 1}, stream=out)
    assert "unrecognized arguments" in out.getvalue()


class _FakeBar:
    def __init__(self, desc, total, unit):
        self.n, self.total, self.desc, self.unit, self.closed, self.shown = 0, total, desc, unit, False, []

    def reset(self, total=None):
        self.n, self.total = 0, total

    def set_description(self, desc, refresh=True):
        self.desc = desc

    def refresh(self):
        self.shown.append((self.desc, self.n, self.total))

    def close(self):
        self.closed = True


def test_a_benchmarks_progress_lines_become_one_bar_and_the_rest_passes_through():
    from venus.notebook.bench import _OneBar

    out, bars = io.StringIO(), []
    one = _OneBar(out, lambda *a: bars.append(_FakeBar(*a)) or bars[-1])
    one.write("haystack: 0.5 min\nrender:  40%|####  | 24/60 [00:03<00:05, 8.00it/s]\r")
    one.write("render: 100%|######| 60/60 [00:07<00:00]\n")
    for n in range(1, 400):  # hundreds of redraws of a bar without a total
        one.write(f"ingest: {n}s [00:00, 39.81s/s]\r")
    one.write("ingest: 400s [00:10, 40s/s]\nkind  depth  rank\nslide 0  1\nmemory: recall@5 1.00")
    one.close()
    assert out.getvalue() == "haystack: 0.5 min\nkind  depth  rank\nslide 0  1\nmemory: recall@5 1.00\n"
    [bar] = bars
    assert bar.shown[0] == ("render", 24.0, 60.0) and bar.shown[1] == ("render", 60.0, 60.0)
    assert bar.shown[-1] == ("ingest", 400.0, None) and bar.closed


def test_overlap_scenario_sets_the_overlap_level_and_checks_the_kind():
    scenario = vn.overlap_scenario("background", gain_db=-3.0, seed=1)
    overlap = scenario.turns[-1]
    assert overlap.label == "background" and overlap.gain_db == -3.0
    assert scenario.turns[0].label is None  # the user's question comes first
    default = vn.overlap_scenario("background", seed=1).turns[-1]
    assert -25.0 <= default.gain_db <= -15.0
    with pytest.raises(ValueError, match="interruption, backchannel"):
        vn.overlap_scenario("shouting")


# -- bring your own model: tiny checkpoints and the stand-in server ----------------------
def test_stand_in_server_speaks_the_api_to_the_real_client():
    from venus.backends import ChunkInput, OpenAICompatibleBackend, OpenAICompatibleConfig

    with vn.StandInChatServer() as server:
        backend = OpenAICompatibleBackend(OpenAICompatibleConfig(base_url=server.base_url,
                                                                 model="stand-in"))
        try:
            image = np.zeros((24, 32, 3), np.uint8)
            quiet = backend.decide(ChunkInput(0.0, 1.0, (image,), ""))
            heard = backend.decide(ChunkInput(1.0, 2.0, (image,), "what is this"))
        finally:
            backend.close()
    assert quiet.token is ControlToken.LISTEN
    assert heard.token is ControlToken.SPEAK and "real model" in heard.text
    assert len(server.requests) == 2
    lines = server.messages_text(-1)
    assert lines[0].startswith("system: You are Venus")
    assert lines[-1].startswith("user: [image] [1s-2s] user: what is this")


@pytest.mark.slow
@pytest.mark.parametrize("family", vn.TINY_FAMILIES)
def test_tiny_model_loads_through_the_real_backend(tmp_path, family):
    from venus.backends import ChunkInput, TransformersBackend, TransformersConfig

    path = vn.build_tiny_model(tmp_path / family, family)
    backend = TransformersBackend(TransformersConfig(str(path), max_new_tokens=3))
    assert backend.family == family
    decision = backend.decide(ChunkInput(0.0, 1.0, (np.zeros((56, 56, 3), np.uint8),),
                                         "what is on the slide",
                                         audio=np.zeros(16000, np.float32)))
    assert decision.token in ControlToken
    assert set(decision.scores) == {t.value for t in ControlToken}
    with pytest.raises(ValueError, match="qwen_vl, smolvlm"):
        vn.build_tiny_model(tmp_path / "x", "gpt5")


# -- widgets on real components (slow: real models) ---------------------------------------
@pytest.fixture(scope="module")
def lecture_memory(tmp_path_factory):
    from memory import VideoMemory
    from memory.samples import make_lecture

    root = tmp_path_factory.mktemp("lecture")
    lecture = make_lecture(minutes=0.5, out_dir=root / "lecture")
    mem = VideoMemory.create(root / "memory")
    mem.ingest(lecture.video)
    yield mem
    mem.close()


@pytest.mark.slow
def test_ask_panel_answers_from_the_button_and_from_code(lecture_memory):
    panel = vn.AskPanel(lecture_memory, k=2)
    box, out = panel.widget.children
    text, button = box.children
    text.value = "What is the pH of lemon juice?"
    button.click()  # what a person's click does
    assert panel.answers[-1].question == "What is the pH of lemon juice?"
    assert "[0:" in out.value and "data:image/jpeg;base64," in out.value
    answer = panel.ask("What do acids donate?")
    assert text.value == "What do acids donate?" and answer.citations
    assert panel.ask("   ") is None  # an empty box asks nothing


@pytest.mark.slow
def test_cutoff_explorer_never_shows_moments_after_the_question(lecture_memory):
    explorer = vn.CutoffExplorer(lecture_memory, "What is the pH scale?", k=3)
    view = explorer.widget
    k_slider, at_slider = view.children[1], view.children[2]
    assert explorer.moments  # the first view is drawn at once
    at_slider.value = 10.0  # moving the slider searches again
    assert explorer.at == 10.0 and all(m.end <= 10.0 for m in explorer.moments)
    k_slider.value = 1
    assert len(explorer.moments) <= 1
    assert "asked at 0:10" in view.children[3].value
    late = explorer.update(k=5, at=lecture_memory.duration)
    assert max(m.end for m in late) > 10.0


@pytest.mark.slow
def test_overlap_playground_runs_a_scenario_and_reports_the_outcome(capsys):
    playground = vn.OverlapPlayground(seed=0)
    controls = playground.widget.children[0].children
    kind, gain = controls[0], controls[1]
    run = playground.run("interruption", gain_db=0.0)
    outcome = playground.runs[-1][1]
    assert (kind.value, gain.value) == ("interruption", 0.0)
    assert outcome.kind == "interruption" and outcome.correct
    assert isinstance(outcome.stop_latency_s, float) and outcome.stop_latency_s < 1.0
    assert outcome == vn.overlap_outcome(run)
    page = vn.outcomes_html([outcome])
    assert "interruption" in page and "right" in page
    shown = capsys.readouterr().out  # shown in the cell, not in the panel's output area
    assert shown.count("HTML object") == 1 and "Figure(" in shown  # table + labelled players
    controls[2].click()  # the Run button: the panel's knobs, shown in its output area
    assert len(playground.runs) == 2 and playground.runs[-1][1].kind == "interruption"
    shown = capsys.readouterr().out  # outside a kernel the Output widget passes displays on
    assert shown.count("HTML object") == 1
