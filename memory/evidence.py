"""What the memory hands back: `Moment`, `Evidence` and `Answer` (data types only).

The bottom of the retrieval side: the model seams (`memory.models.base`), the answerers
(`memory.answering`) and the store all pass these around; nothing here does work beyond
formatting a time.

A `Moment` is one retrieved stretch of video (the open window of chunks, a segment or a
chapter). `Evidence` is one unit inside a moment that can answer a question on its own:
a transcript sentence with its word times, or one line of on-screen text with the time
its key frame was on screen. An `Answer` leads with its evidence and says whether the
memory held anything that answers (``found``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SAID", "SEEN", "SHOWN", "Answer", "Evidence", "Moment", "format_time"]

SAID, SHOWN, SEEN = "said", "shown", "seen"
"""Evidence kinds: a transcript sentence, an on-screen text line, a caption of a frame."""


def format_time(seconds: float) -> str:
    """Media time as m:ss (or h:mm:ss past the hour)."""
    s = int(round(max(0.0, seconds)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


@dataclass(frozen=True)
class Evidence:
    """One sentence said or one line shown, in media seconds.

    ``kind`` is `SAID`, `SHOWN` or `SEEN`; ``segment_id`` the segment holding it (None in
    the stretch not yet closed into a segment); ``score`` how well it answers the
    question it was scored for (0 when unscored); ``boilerplate`` marks screen text that
    repeats on most key frames (a slide footer), which is searchable but never quoted.
    """

    kind: str
    text: str
    start: float
    end: float
    segment_id: int | None = None
    score: float = 0.0
    boilerplate: bool = False

    def span(self) -> str:
        return f"{format_time(self.start)}-{format_time(self.end)}"

    def holds(self, t: float, slack: float = 0.0) -> bool:
        return self.start - slack <= t < self.end + slack


@dataclass(frozen=True)
class Moment:
    """A retrieved stretch of video, in media seconds.

    ``text`` is the summary that was indexed; ``transcript`` what was said; ``ocr_text``
    what was on screen; ``keyframe`` a JPEG path (None when the stretch had none);
    ``level`` is "chunk" (the raw recent window), "segment" or "chapter"; ``evidence``
    the units inside it that were scored for the question, best first (empty for a plain
    search); ``video_id`` the video of a library it comes from (None in one memory).
    """

    start: float
    end: float
    score: float
    text: str
    transcript: str = ""
    ocr_text: str = ""
    keyframe: str | None = None
    level: str = "segment"
    id: int | None = None
    caption: str = ""
    evidence: tuple[Evidence, ...] = ()
    video_id: str | None = None

    def span(self) -> str:
        return f"{format_time(self.start)}-{format_time(self.end)}"

    def holds(self, t: float) -> bool:
        return self.start <= t < self.end or (t == self.end and self.level == "chunk")


@dataclass(frozen=True)
class Answer:
    """A reply to a question asked at media time ``asked_at``.

    ``found`` is False when the memory holds nothing that answers (then ``text`` says so,
    and ``evidence`` is empty); ``evidence`` are the lead units the text quotes, best
    first, with their times; ``citations`` the moments they come from (the first holds
    the lead evidence) and further good moments. ``recent`` is the last ~60 s before
    ``asked_at``; ``time_window`` the window the question's time phrase asked about.
    """

    question: str
    text: str
    citations: tuple[Moment, ...] = ()
    asked_at: float | None = None
    recent: Moment | None = None
    time_window: tuple[float | None, float | None] = (None, None)
    extras: dict = field(default_factory=dict)
    found: bool = True
    evidence: tuple[Evidence, ...] = ()
