"""venus: the full-duplex runtime (timeline, frontends, harness, sessions) on top of ``memory``."""

__version__ = "0.1.0"

__all__ = ["__version__"]
