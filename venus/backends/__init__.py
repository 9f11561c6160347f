"""Model backends for the frontends: a running context, one control decision a second.

Layers: ``base`` (ChunkInput, BackendDecision, BackendError) -> ``prompt`` (the
control-token protocol) and ``images`` -> ``openai_compat`` (any chat-completions
server) and ``transformers_model`` (a Hugging Face model from a local path). Heavy
imports (torch, transformers, httpx) happen when a backend is built, not here.
"""

from __future__ import annotations

import importlib
from typing import Any

from venus.backends.base import (
    CONTROL_TOKENS,
    BackendDecision,
    BackendError,
    ChunkInput,
    ModelBackend,
)
from venus.backends.prompt import (
    SYSTEM_PROMPT,
    assistant_message_text,
    chunk_message_text,
    parse_control,
    system_prompt,
)

_LAZY = {
    "OpenAICompatibleBackend": "venus.backends.openai_compat",
    "OpenAICompatibleConfig": "venus.backends.openai_compat",
    "TransformersBackend": "venus.backends.transformers_model",
    "TransformersConfig": "venus.backends.transformers_model",
}

__all__ = [
    "CONTROL_TOKENS",
    "SYSTEM_PROMPT",
    "BackendDecision",
    "BackendError",
    "ChunkInput",
    "ModelBackend",
    "OpenAICompatibleBackend",
    "OpenAICompatibleConfig", "TransformersBackend",
    "TransformersConfig",
    "assistant_message_text",
    "chunk_message_text",
    "parse_control",
    "system_prompt",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'venus.backends' has no attribute {name!r}")
