"""demos: the Gradio app (``venus app``), UI only, on the public API of venus and memory.

Layers (bottom to top): `errors`; `labels` (plain words for times, work items, the
banner), `results` (what replies and work items cite), `uploads` (checking uploads, the
sample lecture); `live` (the one-second schedule fed by camera and microphone),
`conversation` (typed turns and panel decisions as a `venus.Frontend`), `frontends`
(the ``--frontend`` choice), `ingest` (the bounded pool that watches uploads); `chat`,
`work`, `views` (what each panel shows, from the timeline); `state` (`AppSession`: one
browser session's memory, loop and files; `SessionRegistry`); `page` (`PageFeed`: the
live outputs, sent only when they change), `voice`; `handlers` (browser events to
`AppSession`) and `ui` (the Gradio layout and `launch`). Only `handlers` and `ui`
import Gradio, so the logic below them is tested without a browser.
"""

from demos.conversation import TypedTurns
from demos.errors import AppError, SessionLimitError, UploadError
from demos.frontends import FrontendSpec, parse_frontend
from demos.ingest import IngestJob, IngestPool
from demos.live import LiveSource
from demos.page import PageFeed
from demos.registry import SessionRegistry
from demos.state import AppOptions, AppSession
from demos.uploads import check_upload

__all__ = [
    "AppError", "AppOptions", "AppSession", "FrontendSpec", "IngestJob", "IngestPool",
    "LiveSource", "PageFeed", "SessionLimitError", "SessionRegistry", "TypedTurns",
    "UploadError", "check_upload", "parse_frontend",
]
