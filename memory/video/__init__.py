"""Video input: sources that yield one-second `VideoChunk`s, and an MP4 writer."""

from memory.video.writer import write_video

__all__ = ["write_video"]
