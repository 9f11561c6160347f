"""The page's voice (demos/static/voice.js) on its own, in headless Chromium: the audio
socket is a fake the test speaks through, so what the page holds and drops is read
straight after each message (the logic of a cut, not its timing on a wall clock)."""

from __future__ import annotations

from pathlib import Path

import pytest

from demos.browser import ARGS, CHROMIUM

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not "
                                "installed at /usr/bin/chromium (scripts/setup.sh installs it)")

VOICE_JS = Path(__file__).resolve().parents[1] / "demos" / "static" / "voice.js"

# A socket the page opens as usual; the test plays the server through `window.server`.
_FAKE_SOCKET = """
window.WebSocket = class {
  constructor(url) { this.readyState = 1; this.sent = []; window.server = this; }
  send(data) { this.sent.push(data); }
  close() {}
};
"""

# Audio frames (b"A", 7 pad bytes, start, now, 16-bit PCM) as the server sends them.
_FRAME = """(start, now, seconds) => {
  const n = Math.round(16000 * seconds);
  const buf = new ArrayBuffer(24 + 2 * n), view = new DataView(buf);
  view.setUint8(0, 65); view.setFloat64(8, start, true); view.setFloat64(16, now, true);
  const pcm = new Int16Array(buf, 24);
  for (let i = 0; i < n; i++) pcm[i] = Math.round(8000 * Math.sin(2 * Math.PI * 220 * i / 16000));
  return buf;
}"""


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                    args=ARGS + ["--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page()
        # the page's socket URL is relative to the page's own: serve it from an origin
        page.route("http://venus.test/", lambda route: route.fulfill(
            content_type="text/html", body='<div id="venus-agent-state" data-link="t" '
            'data-state="listening"></div>'))
        page.goto("http://venus.test/")
        page.add_script_tag(content=_FAKE_SOCKET)
        page.add_script_tag(path=str(VOICE_JS))
        page.wait_for_function("window.server !== undefined")  # the page connected
        yield page
        browser.close()


def test_a_cut_silences_the_page_from_the_cut_not_from_the_last_frame_it_held(page):
    held = page.evaluate(f"""() => {{
      const frame = {_FRAME}, v = window.venusVoice, ws = window.server;
      // the reply, 0.1 s frames sent 0.4 s ahead of the session's clock (as demos.playout)
      for (let k = 0; k < 5; k++) ws.onmessage({{data: frame(10 + k / 10, 10, 0.1)}});
      const before = v.sources.length;
      ws.onmessage({{data: JSON.stringify({{op: 'cut', at: 10.05, now: 10.05}})}});
      const now = v.ctx.currentTime;
      return {{before, cutEnd: v.cutEnd - now,
               after: v.sources.map((s) => [s.s0, s.s1, s.t0 - now, s.t1 - now])}};
    }}""")
    assert held["before"] == 5
    # the frame under the cut plays to the cut (session 10.05 is 0.05 s + the playout
    # delay ahead), and the four frames after it never play
    assert held["cutEnd"] < 0.15, held
    first, *dropped = held["after"]
    assert first[1] == pytest.approx(10.05)
    assert all(t1 <= 1e-6 and t0 == t1 for _, _, t0, t1 in dropped), held
    assert page.evaluate("window.venusVoice.cuts") == 1
