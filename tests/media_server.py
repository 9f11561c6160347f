"""A real HTTP server on 127.0.0.1 in a thread, serving one folder with byte ranges.

Not a test module: the URL tests import it. Python's own `SimpleHTTPRequestHandler`
ignores ``Range`` (so FFmpeg could not reach an MP4's index at its end); real servers
answer it, and so does this one. It never leaves the loopback interface.
"""

from __future__ import annotations

import contextlib
import re
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class RangeHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def send_head(self):
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = Path(self.translate_path(self.path))
        if match is None or not path.is_file():
            return super().send_head()
        size = path.stat().st_size
        start = int(match.group(1))
        end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
        if start >= size:
            self.send_error(416, "Requested Range Not Satisfiable")
            return None
        fh = path.open("rb")
        fh.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self._remaining = end - start + 1
        return fh

    def copyfile(self, source, outputfile) -> None:
        remaining = getattr(self, "_remaining", None)
        if remaining is None:
            return super().copyfile(source, outputfile)
        while remaining > 0:
            data = source.read(min(65536, remaining))
            if not data:
                break
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                outputfile.write(data)
            remaining -= len(data)
        self._remaining = None


@contextlib.contextmanager
def serve(folder: Path):
    """Yield the base URL of a server for ``folder``; stopped on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(folder)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="media-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
