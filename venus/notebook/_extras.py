"""Import guard for the optional ``notebooks`` extra (matplotlib, ipywidgets, IPython).

The bottom of `venus.notebook`: every plotting or widget function imports its library
through `require`, so importing `venus.notebook` itself costs nothing and a missing
package is one sentence naming the extra, not a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from memory.errors import MissingExtraError

__all__ = ["require"]


def require(module: str) -> ModuleType:
    """Import ``module`` (e.g. ``"matplotlib.pyplot"``) or say which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(module.split(".")[0], "notebooks",
                                "this notebook helper") from exc
