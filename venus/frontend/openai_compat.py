"""`OpenAICompatibleFrontend`: a model served by vLLM, SGLang, the llama.cpp server or
Ollama, reached over the OpenAI chat-completions API, as the conversational frontend.

Composition only: `venus.backends.OpenAICompatibleBackend` (one request per second,
frames as JPEG image parts, the control-token protocol in the system prompt) under
`ModelFrontend` (perception and the mapping to `Decision`). This is how the real large
models run: on another machine, with this toolkit as their client.
"""

from __future__ import annotations

from venus.backends.openai_compat import OpenAICompatibleBackend, OpenAICompatibleConfig
from venus.frontend.model_backed import ModelFrontend

__all__ = ["OpenAICompatibleConfig", "OpenAICompatibleFrontend"]


class OpenAICompatibleFrontend(ModelFrontend):
    """``OpenAICompatibleFrontend(OpenAICompatibleConfig(base_url="http://gpu:8000/v1",
    model="Qwen/Qwen2.5-VL-7B-Instruct"))``; after ``say_after`` failed chunks in a row the
    assistant says once that it cannot reach its model (0: never)."""

    name = "openai_compatible"

    def __init__(self, config: OpenAICompatibleConfig | None = None, *,
                 backend: OpenAICompatibleBackend | None = None, max_frames: int = 1,
                 say_after: int = 3) -> None:
        self.config = config or OpenAICompatibleConfig()
        super().__init__(backend or OpenAICompatibleBackend(self.config), max_frames=max_frames,
                         say_after=say_after)
