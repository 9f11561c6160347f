"""Sample media made locally: the narrated synthetic lecture (nothing binary is committed)."""

from memory.samples.lecture import (
    LectureFiles,
    LectureScript,
    Slide,
    lecture_script,
    make_lecture,
    render_lecture,
)
from memory.samples.slides import SCENES

__all__ = ["SCENES", "LectureFiles", "LectureScript", "Slide", "lecture_script", "make_lecture",
           "render_lecture"]
