"""The executed previews in docs/notebooks/ read offline in a real browser (issue 30).

Each preview is opened from disk in Debian's Chromium with every http(s) request refused:
nothing may be asked of a network, the widgets saved with the notebook must draw (their
renderer is bundled in docs/notebooks/_static/), and 01's lecture video, embedded in the
page, must play. The previews are made by ``scripts/notebook_previews.py``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from demos.browser import ARGS, CHROMIUM

DOCS = Path(__file__).resolve().parent.parent / "docs" / "notebooks"
PREVIEWS = sorted(DOCS.glob("*.html"))
SOURCES = sorted((DOCS.parent.parent / "notebooks").glob("*.ipynb"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed at "
                       "/usr/bin/chromium (scripts/setup.sh installs it)"),
]


def test_every_notebook_has_an_executed_preview():
    assert [p.stem for p in PREVIEWS] == [s.stem for s in SOURCES], \
        "run python scripts/notebook_previews.py after adding or renaming a notebook"
    for source in SOURCES:
        executed = nbformat.read(DOCS / source.name, as_version=4)
        assert executed.metadata.get("widgets"), f"{source.name}: preview saved without widget state"
        assert not [o for c in executed.cells if c.cell_type == "code" for o in c.outputs
                    if o.output_type == "error"], f"{source.name}: preview has an error"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM),
                                     args=ARGS + ["--autoplay-policy=no-user-gesture-required"])
        yield chromium
        chromium.close()


def _open(browser, path: Path):
    page = browser.new_page()
    asked: list[str] = []

    def refuse(route):
        asked.append(route.request.url)
        route.abort()

    page.route("http*://**/*", refuse)
    page.goto(path.as_uri(), wait_until="load", timeout=60_000)
    return page, asked


@pytest.mark.parametrize("path", PREVIEWS, ids=lambda p: p.stem)
def test_a_preview_draws_its_widgets_with_no_network(browser, path):
    page, asked = _open(browser, path)
    page.wait_for_selector(".jupyter-widgets", state="visible", timeout=30_000)
    assert page.locator(".jupyter-widgets").count() >= 1
    assert not page.locator("text=Error displaying widget").count()
    assert asked == [], f"{path.name} asked the network for {asked}"
    page.close()


def test_the_quickstart_preview_plays_its_lecture(browser):
    page, _ = _open(browser, DOCS / "01_quickstart.html")
    video = page.locator("video").first
    video.scroll_into_view_if_needed()
    page.evaluate("() => { const v = document.querySelector('video'); v.muted = true; "
                  "return v.play(); }")
    page.wait_for_function("() => document.querySelector('video').currentTime > 0.5",
                           timeout=30_000)
    duration = page.evaluate("() => document.querySelector('video').duration")
    assert duration > 30, f"the embedded lecture is {duration} s long"
    page.close()
