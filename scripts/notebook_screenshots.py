"""Screenshots of the executed notebooks as JupyterLab shows them: docs/img/notebook-NN.png.

Starts JupyterLab on a copy of ``docs/notebooks/*.ipynb`` (made by
``scripts/notebook_previews.py``), opens each in Debian's Chromium and takes one picture at
the section a class would look at first (the outputs, not the code). Run from the
checkout with the notebooks and dev extras: ``python scripts/notebook_screenshots.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from demos.browser import ARGS, CHROMIUM

OUT = ROOT / "docs" / "img"
TOKEN = "venus-screenshots"
# the heading each picture starts at (text of a markdown heading in the notebook)
AT = {"01": "4. Ask questions", "02": "3. Recall by depth and kind", "03": "2. Run them",
      "04": "3. A late result is introduced, not blurted out",
      "05": "5. Compare: the built-in rules and the two models on the same seconds"}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lab(root: Path, settings: Path, port: int) -> subprocess.Popen:
    # every cell rendered (no windowing), so a heading far down can be scrolled to
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))  # no pop-up
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings))
    return subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={root}",
         "--ServerApp.open_browser=False", "--allow-root"], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def _wait(url: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"JupyterLab did not answer at {url} within {seconds:.0f} s")


def shoot(page, base: str, notebook: Path) -> Path:
    # a workspace of its own: only this notebook open
    page.goto(f"{base}/lab/workspaces/shot-{notebook.name[:2]}/tree/{notebook.name}"
              f"?reset&token={TOKEN}")
    page.locator(".jp-Notebook .jp-Cell").locator("visible=true").first.wait_for(timeout=120_000)
    page.wait_for_timeout(4000)  # outputs, widgets restored from the saved state
    heading = page.locator(".jp-MarkdownOutput h2", has_text=AT[notebook.name[:2]]) \
        .locator("visible=true").first
    heading.scroll_into_view_if_needed()
    heading.evaluate("h => h.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(1000)
    out = OUT / f"notebook-{notebook.name[:2]}.png"
    page.screenshot(path=str(out))
    return out


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="venus-lab-") as tmp:
        root, port = Path(tmp) / "notebooks", _port()
        root.mkdir()
        for nb in sorted((ROOT / "docs" / "notebooks").glob("*.ipynb")):
            shutil.copy(nb, root / nb.name)
        lab = _lab(root, Path(tmp) / "settings", port)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait(f"{base}/api?token={TOKEN}")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                for nb in sorted(root.glob("*.ipynb")):
                    page = browser.new_page(viewport={"width": 1280, "height": 900})
                    print(shoot(page, base, nb).relative_to(ROOT))
                    page.close()
                browser.close()
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
