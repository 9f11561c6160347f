"""demos: the Gradio app (``venus app``), UI only, on the public API of venus and memory.

Layers (bottom to top): `uploads` (checking uploads, the sample lecture), `live` (the
one-second schedule fed by camera and microphone), `conversation` (typed turns and panel
decisions as a `venus.Frontend`), `frontends` (the ``--frontend`` choice), `state`
(`AppSession`: one browser session's memory, loop and files; `SessionRegistry`),
`views` (HTML and chat rendering from the timeline), `handlers` (browser events to
`AppSession`), `ui` (the Gradio layout and `launch`). Only `handlers` and `ui` import
Gradio, so the logic below them is tested without a browser.
"""

from demos.conversation import TypedTurns
from demos.frontends import FrontendSpec, parse_frontend
from demos.live import LiveSource
from demos.state import AppOptions, AppSession, SessionRegistry
from demos.uploads import UploadError, check_upload

__all__ = [
    "AppOptions", "AppSession", "FrontendSpec", "LiveSource", "SessionRegistry", "TypedTurns",
    "UploadError", "check_upload", "parse_frontend",
]
