"""What a model backend trades in: one second of input, one control decision.

The bottom of `venus.backends` (above `venus.events` for `ControlToken`). A backend
keeps a running conversation context; after each one-second `ChunkInput` it returns a
`BackendDecision`: the next control token and, for ``<|speak|>``, a short reply.
The frontends in `venus.frontend.transformers` / `venus.frontend.openai_compat` turn
session chunks into `ChunkInput`s and decisions into `venus.frontend.Decision`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from venus.errors import BackendError
from venus.events import ControlToken

__all__ = ["CONTROL_TOKENS", "BackendDecision", "BackendError", "ChunkInput", "ModelBackend"]

CONTROL_TOKENS: tuple[str, ...] = tuple(t.value for t in ControlToken)
"""``<|listen|>``, ``<|speak|>``, ``<|turn_eos|>``, in `ControlToken` order."""


@dataclass(frozen=True)
class ChunkInput:
    """One second for the model: its frames, the user's words in it, and notes.

    ``images`` are RGB uint8 arrays (H, W, 3); ``words`` is what the user said in the
    second ("" for silence); ``assistant_speaking`` says the assistant's own audio was
    playing; ``notes`` are short lines the model should know (a delegated result that
    arrived, an overlap classification); ``audio`` is the second's 16 kHz mono audio,
    for backends that hear (the Omni thinker; servers with ``supports_audio``), else None;
    ``user_speaking`` says the user was still speaking at the end of the second (the
    VAD's view), which tells a backend whether the user's turn has ended.
    """

    start: float
    end: float
    images: tuple[np.ndarray, ...] = field(default=(), repr=False)
    words: str = ""
    assistant_speaking: bool = False
    notes: tuple[str, ...] = ()
    audio: np.ndarray | None = field(default=None, repr=False)
    user_speaking: bool = False


@dataclass(frozen=True)
class BackendDecision:
    """The model's choice after one chunk; ``text`` is the reply for ``<|speak|>``.

    ``scores`` holds the three control-token logits where the backend can see them
    (local models), else is empty; ``latency_s`` is the wall time of the decision.
    """

    token: ControlToken
    text: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    latency_s: float = 0.0


@runtime_checkable
class ModelBackend(Protocol):
    """A model with a running context: one decision per second, `reset` to start over,
    `close` to release it (a connection, a cache)."""

    def decide(self, chunk: ChunkInput) -> BackendDecision: ...

    def reset(self) -> None: ...

    def close(self) -> None: ...
