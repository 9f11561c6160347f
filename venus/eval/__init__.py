"""Duplex evaluation in the Full-Duplex-Bench format: synthesize, run, score offline.

Layers: ``fdb`` (folder format, metadata, transcripts) -> ``synth`` (seeded samples) and
``runner`` (the system in simulated time) -> ``timing`` / ``score`` (offline scoring).
"""
