"""Video input: sources that yield one-second `VideoChunk`s, and an MP4 writer.

`open_video` opens a file or URL (PyAV by default, decord optional); `probe` checks an
input (an upload, a command-line argument) is a readable video and says what it holds,
refusing anything else with one sentence; `CameraSource` reads a live camera behind the
same `VideoSource` interface.
"""

from memory.video.base import VideoSource
from memory.video.camera import CameraSource, FrameReader, OpenCVReader
from memory.video.file import DECODERS, MAX_SIDE, open_video
from memory.video.probe import probe
from memory.video.writer import write_video

__all__ = [
    "DECODERS",
    "MAX_SIDE",
    "CameraSource",
    "FrameReader",
    "OpenCVReader",
    "VideoSource",
    "open_video",
    "probe",
    "write_video",
]
