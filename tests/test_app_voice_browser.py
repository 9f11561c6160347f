"""End to end, by voice: ``venus app`` in headless Debian Chromium with a fake microphone
file (Flite, a voice family held out of tuning), through the page's audio socket both
ways (`demos.live_bench.talk`, what ``venus bench live`` runs). The page is spoken to
with the #venus-talk button; what it plays is read from #venus-agent-state. Nothing is
loaded (the replies say so), which keeps the run short; the sample lecture's answers
are ``venus bench live``'s."""

from __future__ import annotations

from dataclasses import replace

import pytest

from demos.browser import CHROMIUM
from demos.live_bench import CONVERSATIONS, talk

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:unclosed event loop:ResourceWarning"),
    pytest.mark.filterwarnings(r"ignore:unclosed <socket\.socket fd=\d+, family=1:ResourceWarning"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed at "
                       "/usr/bin/chromium (scripts/setup.sh installs it)"),
]

BY_KIND = {c.kind: c for c in CONVERSATIONS}
# With nothing loaded every reply is the same 3-second "I haven't seen ..."; the bench's
# interruption (3 s after the question, into a longer answer) would land at its very end.
BARGE_IN = replace(BY_KIND["bargein"], after_s=2.0)


@pytest.mark.parametrize("assistant_voice, engine", [("auto", "Piper"), ("espeak", "eSpeak")])
def test_a_spoken_question_is_answered_by_voice_and_a_barge_in_silences_the_page(
        tmp_path, assistant_voice, engine):
    results = talk(tmp_path, [BY_KIND["question"], BARGE_IN], "slt", video=False,
                   assistant_voice=assistant_voice)
    log = (tmp_path / "server.log").read_text()
    assert f"the assistant speaks with {engine}" in log, log  # the voice asked for, or Piper
    question, bargein = results
    # the page heard the microphone, sent it, and played a reply that came back
    frames_in, frames_out = question["frames"]
    assert frames_out > 100 and frames_in > 5, question["frames"]
    assert question["answered"], "the spoken question got no spoken reply in the page"
    assert 0.2 < question["voice_to_voice_s"] < 4.0, question  # played after the question
    assert not question["false_stop"]  # nobody spoke over it: it played to its end
    chat = (tmp_path / "chat.txt").read_text()
    assert "haven't seen" in chat  # what it said, also written in the chat
    # the interruption landed in a reply: the page stopped playing it, then answered
    assert bargein["answered"]
    assert bargein["speaking_at_second"], "the interruption came after the reply ended"
    assert bargein["silence_s"] is not None
    assert bargein["silence_s"] < 1.5, bargein  # under load; `venus bench live` times it
    assert "(interrupted)" in chat  # the reply was stopped, and the chat says so
    assert bargein["replied_to_second"]
    # the state element went through listening, thinking and speaking
    states = (tmp_path / "states.txt").read_text().split()
    assert {"listening", "thinking", "speaking"} <= set(states)
    assert (tmp_path / "page.png").stat().st_size > 10_000
