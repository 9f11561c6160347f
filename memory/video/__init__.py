"""Video input: sources that yield one-second `VideoChunk`s, and an MP4 writer.

`open_video` opens a file (PyAV by default, decord optional); `CameraSource` reads a
live camera behind the same `VideoSource` interface.
"""

from memory.video.base import VideoSource
from memory.video.camera import CameraSource, FrameReader, OpenCVReader
from memory.video.file import DECODERS, open_video
from memory.video.writer import write_video

__all__ = [
    "DECODERS",
    "CameraSource",
    "FrameReader",
    "OpenCVReader",
    "VideoSource",
    "open_video",
    "write_video",
]
