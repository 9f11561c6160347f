"""`TransformersFrontend`: a Hugging Face model from a local path as the conversational
frontend (Qwen2.5-Omni thinker, Qwen2.5-VL, SmolVLM, or any chat model).

Composition only: `venus.backends.TransformersBackend` (running KV-cached context,
constrained control-token choice, short replies) under `ModelFrontend` (perception and
the mapping to `Decision`). See `venus.backends.prompt` for the prompt protocol used
with models that were not trained with the control tokens.
"""

from __future__ import annotations

from venus.backends.transformers_model import TransformersBackend, TransformersConfig
from venus.frontend.model_backed import ModelFrontend

__all__ = ["TransformersConfig", "TransformersFrontend"]


class TransformersFrontend(ModelFrontend):
    """``TransformersFrontend(TransformersConfig(model_path="/models/Qwen2.5-VL-3B"))``.

    The model loads (from disk only) when the frontend is built; a missing path is a
    `venus.errors.ConfigError` naming it.
    """

    name = "transformers"

    def __init__(self, config: TransformersConfig, *,
                 backend: TransformersBackend | None = None, max_frames: int = 1) -> None:
        super().__init__(backend or TransformersBackend(config), max_frames=max_frames)
        self.config = config
