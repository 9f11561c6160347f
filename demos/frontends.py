"""Which conversational frontend the app runs: ``--frontend embedded|transformers:PATH|openai:URL``.

Below `demos.state`: `parse_frontend` turns the flag into a `FrontendSpec` (checked when
the app starts, so a typo fails before the server opens), and `FrontendSpec.factory`
returns the ``memory -> Frontend`` function each browser session calls to build its
own frontend. Heavy frontends are imported only when chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from venus.errors import ConfigError
from venus.frontend import Frontend
from venus.harness import MemoryView

__all__ = ["FrontendFactory", "FrontendSpec", "parse_frontend"]

FrontendFactory = Callable[[MemoryView], Frontend]
"""``factory(memory)`` -> a new frontend for one browser session (the session around it is
assembled by `venus.assistant`, which gives it the duplex I/O)."""

KINDS = ("embedded", "transformers", "openai")


@dataclass(frozen=True)
class FrontendSpec:
    """``kind`` is one of `KINDS`; ``target`` the model path or server URL; ``model`` the
    served model name of an OpenAI-compatible server."""

    kind: str = "embedded"
    target: str = ""
    model: str = "default"

    def factory(self) -> FrontendFactory:
        if self.kind == "transformers":
            return self._transformers()
        if self.kind == "openai":
            return self._openai()
        return _embedded

    def _transformers(self) -> FrontendFactory:
        from venus.frontend.transformers import TransformersConfig, TransformersFrontend

        config = TransformersConfig(model_path=self.target)
        return lambda memory: TransformersFrontend(config)

    def _openai(self) -> FrontendFactory:
        from venus.frontend.openai_compat import OpenAICompatibleConfig, OpenAICompatibleFrontend

        config = OpenAICompatibleConfig(base_url=self.target, model=self.model)
        return lambda memory: OpenAICompatibleFrontend(config)

    def describe(self) -> str:
        return self.kind if not self.target else f"{self.kind} ({self.target})"


def _embedded(memory: MemoryView) -> Frontend:
    from venus.frontend.embedded import EmbeddedFrontend

    return EmbeddedFrontend(memory)


def parse_frontend(value: str, model: str = "default") -> FrontendSpec:
    """``"embedded"``, ``"transformers:/models/Qwen2.5-VL-3B"`` or
    ``"openai:http://gpu:8000/v1"``; anything else is a `ConfigError` naming the forms."""
    kind, _, target = value.partition(":")
    kind = kind.strip().lower()
    if kind == "embedded" and not target:
        return FrontendSpec()
    if kind == "transformers" and target.strip() and not Path(target.strip()).is_dir():
        raise ConfigError(f"the model directory {target.strip()} does not exist; pass "
                          f"transformers:/path/to/a/local/model (nothing is downloaded)")
    if kind in ("transformers", "openai") and target.strip():
        return FrontendSpec(kind, target.strip(), model)
    raise ConfigError(f"unknown frontend {value!r}; use 'embedded', "
                      f"'transformers:/local/model/dir' or 'openai:http://host:8000/v1'")
