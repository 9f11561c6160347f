"""Many videos in one place: `VideoLibrary`, its batch ingest, and its index at scale.

Layers inside: ``db`` (the library's SQLite file: videos and merged rows) -> ``library``
(`VideoLibrary`: each video's own `memory.store.VideoMemory`, merged and searched across
videos) -> ``batch`` (`ingest_videos`: videos fanned out as Ray tasks or local processes,
each into its own memory, merged by the library as they finish).
"""

from memory.library.library import VideoLibrary, VideoRecord

__all__ = ["VideoLibrary", "VideoRecord"]
