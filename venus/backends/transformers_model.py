"""`TransformersBackend`: a Hugging Face model from a local path with a running context.

Above `hf_loading` and `hf_vision`. The conversation is a chat: the system prompt of
the control-token protocol (`venus.backends.prompt`), then one user message per second
(its frames as image parts, its words as text) and one assistant message per second
(the control token, plus the reply after ``<|speak|>``). The context lives in a KV
cache: each second only the new text since what is already cached is rendered with the
model's own chat template (the diff of two renders), tokenised, and fed, with the new
frames' pixels. The decision is constrained: the logits of the three control tokens at
the end of the assistant prompt are compared. After ``<|speak|>`` a short greedy
generation produces the reply, fed into the cache token by token.

When the context would pass ``max_context_tokens`` (or a chat template is not
prefix-stable), it is rebuilt: the system prompt and the last ``keep_chunks`` seconds,
text only, re-encoded in one pass.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from venus.backends.base import BackendDecision, BackendError, ChunkInput
from venus.backends.hf_loading import LoadedModel, load_model
from venus.backends.hf_vision import EncodedInputs, make_adapter, mrope_positions
from venus.backends.prompt import chunk_message_text, system_prompt
from venus.events import ControlToken

__all__ = ["TransformersBackend", "TransformersConfig"]

logger = logging.getLogger(__name__)

_FALLBACK_TEMPLATE = (  # ChatML, for tokenizers that ship no chat template
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


@dataclass(frozen=True)
class TransformersConfig:
    """Which model and how to run it.

    ``model_path`` is a local directory (never a Hub id: nothing is downloaded).
    ``dtype`` ``auto`` is float32 on CPU and bfloat16 on CUDA. ``max_new_tokens``
    bounds each spoken reply; ``max_image_pixels`` bounds a frame for the Qwen
    families (SmolVLM uses its encoder's own size); ``send_audio`` gives the second's
    audio to models that hear (the Omni thinker) besides the transcribed words.
    ``control_bias`` is added to the control tokens' logits before the choice (for
    example ``{"<|listen|>": 2.0}`` for a model not trained with them that talks too
    much). Frames dominate the context: a Qwen frame at 448x448 is 256 tokens, so 8192 tokens
    hold about half a minute of seconds with frames before a rebuild.
    """

    model_path: str
    device: str = "cpu"
    dtype: str = "auto"
    assistant_name: str = "Venus"
    system_extra: str = ""
    max_new_tokens: int = 24
    max_context_tokens: int = 8192
    keep_chunks: int = 8
    max_image_pixels: int = 448 * 448
    send_audio: bool = True
    control_bias: Mapping[str, float] = field(default_factory=dict)


class TransformersBackend:
    """One control decision per second from a local Hugging Face model (see module doc)."""

    def __init__(self, config: TransformersConfig, loaded: LoadedModel | None = None) -> None:
        self.config = config
        self.loaded = loaded or load_model(config.model_path, config.device, config.dtype)
        self.family = self.loaded.family
        self._adapter = make_adapter(self.loaded, config.max_image_pixels)
        tok = self.loaded.tokenizer
        if not getattr(tok, "chat_template", None):
            tok.chat_template = _FALLBACK_TEMPLATE
        params = inspect.signature(self.loaded.model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"
        self._control = {ControlToken(t): i for t, i in self.loaded.control_ids.items()}
        self._stop_ids = self._stop_token_ids()
        # A reply never contains image placeholders or other markup tokens.
        self._banned = sorted({i for i, t in tok.added_tokens_decoder.items() if t.special}
                              - self._stop_ids)
        self.reset()

    # -- context -----------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the system prompt; the cache is dropped."""
        c = self.config
        self._messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._content(system_prompt(c.assistant_name,
                                                                      c.system_extra))}]
        self._cache: Any = None
        self._cached = 0  # tokens in the cache
        self._fed = ""  # the rendered text whose tokens are in the cache
        self._next_pos = 0  # next rotary position (M-RoPE families)
        self.rebuilds = 0  # times the context was re-encoded (overflow, unstable template)

    def close(self) -> None:
        """Drop the KV cache (the model itself is freed with the backend)."""
        self._cache, self._cached, self._fed = None, 0, ""

    @property
    def context_tokens(self) -> int:
        return self._cached

    def _content(self, text: str, images: int = 0, audio: bool = False) -> Any:
        if not self._adapter.sees_images:
            return text
        return ([{"type": "image"}] * images + [{"type": "audio"}] * audio
                + [{"type": "text", "text": text}])

    def _render(self, generation_prompt: bool) -> str:
        return self.loaded.tokenizer.apply_chat_template(
            self._messages, add_generation_prompt=generation_prompt, tokenize=False)

    def _stop_token_ids(self) -> set[int]:
        tok, model = self.loaded.tokenizer, self.loaded.model
        stops = set(self._control.values())
        eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        stops.update(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if tok.eos_token_id is not None:
            stops.add(int(tok.eos_token_id))
        for marker in ("<|im_end|>", "<end_of_utterance>", "<|eot_id|>", "<|endoftext|>"):
            if marker in tok.get_vocab():
                stops.add(int(tok.convert_tokens_to_ids(marker)))
        return stops

    # -- one second ----------------------------------------------------------------------
    def decide(self, chunk: ChunkInput) -> BackendDecision:
        import torch

        began = time.perf_counter()
        images = chunk.images if self._adapter.sees_images else ()
        audio = chunk.audio if self.config.send_audio and self._adapter.hears_audio else None
        encoded = self._adapter.encode(images, audio)
        self._messages.append({"role": "user", "content": self._content(
            chunk_message_text(chunk), len(images), bool(encoded.audio_expansions))})
        with torch.inference_mode():
            logits = self._feed_new_text(encoded)
            bias = self.config.control_bias
            scores = {t.value: float(logits[i]) + float(bias.get(t.value, 0.0))
                      for t, i in self._control.items()}
            token = ControlToken(max(scores, key=scores.__getitem__))
            text = self._speak() if token is ControlToken.SPEAK else ""
        if token is not ControlToken.SPEAK:
            # Fed with the next second's text (saves a forward pass now).
            self._messages.append({"role": "assistant", "content": self._content(token.value)})
        return BackendDecision(token, text, scores, time.perf_counter() - began)

    def _feed_new_text(self, encoded: EncodedInputs):
        rendered = self._render(generation_prompt=True)
        cut = _align(self._fed, rendered)
        if cut is None:
            logger.debug("chat template is not prefix-stable here; rebuilding the context")
            rendered, cut = self._rebuild(), 0
        piece = self._expand(rendered[cut:], encoded)
        ids = self.loaded.tokenizer(piece, add_special_tokens=False).input_ids
        if self._cached + len(ids) > self.config.max_context_tokens and self._cached:
            rendered = self._rebuild()
            piece = self._expand(rendered, encoded)
            ids = self.loaded.tokenizer(piece, add_special_tokens=False).input_ids
        self._fed = rendered
        return self._forward(ids, encoded)

    def _expand(self, piece: str, encoded: EncodedInputs) -> str:
        """Replace each image/audio placeholder in ``piece`` with its tokens."""
        for marker, expansions in ((self._adapter.image_token, encoded.expansions),
                                   (self._adapter.audio_token, encoded.audio_expansions)):
            if not expansions:
                continue
            parts = piece.split(marker)
            if len(parts) - 1 != len(expansions):
                raise BackendError(
                    f"the chat template of {self.loaded.path} rendered {len(parts) - 1} "
                    f"placeholders {marker} for {len(expansions)} inputs; use the model's own "
                    f"tokenizer and chat template")
            piece = parts[0] + "".join(e + rest for e, rest in zip(expansions, parts[1:]))
        return piece

    def _rebuild(self) -> str:
        """Drop the cache; keep the system prompt and the last seconds, frames only for now."""
        self.rebuilds += 1
        keep = 2 * max(1, self.config.keep_chunks)
        system, history, current = self._messages[0], self._messages[1:-1], self._messages[-1]
        self._messages = [system, *(_text_only(m) for m in history[-keep:]), current]
        self._cache, self._cached, self._fed, self._next_pos = None, 0, "", 0
        return self._render(generation_prompt=True)

    def _forward(self, ids: list[int], encoded: EncodedInputs | None = None):
        import torch

        if not ids:
            raise BackendError("nothing new to feed the model; this is a bug in the prompt diff")
        encoded = encoded or EncodedInputs()
        model = self.loaded.model
        kwargs: dict[str, Any] = {"input_ids": torch.tensor([ids]), "use_cache": True}
        if self._adapter.uses_mrope:
            positions, self._next_pos = mrope_positions(
                ids, self._adapter.image_token_id, encoded.grids, self._adapter.merge,
                self._next_pos)
            kwargs["position_ids"] = torch.from_numpy(positions)[:, None, :]
        if encoded.tensors:
            kwargs.update(self._adapter.forward_kwargs(ids, encoded))
        elif self._adapter.family == "qwen_vl":
            kwargs["mm_token_type_ids"] = torch.zeros((1, len(ids)), dtype=torch.long)
        kwargs = {k: _to(v, model.device, model.dtype) for k, v in kwargs.items()}
        kwargs[self._cache_arg] = self._cache
        out = model(**kwargs)
        self._cache = getattr(out, "cache", None) or out.past_key_values
        self._cached += len(ids)
        return out.logits[0, -1].float()

    def _speak(self) -> str:
        """Feed ``<|speak|>`` then generate greedily until a stop token or the budget."""
        tok = self.loaded.tokenizer
        logits = self._forward([self._control[ControlToken.SPEAK]])
        generated: list[int] = []
        for _ in range(self.config.max_new_tokens):
            logits[self._banned] = float("-inf")
            nxt = int(logits.argmax())
            if nxt in self._stop_ids:
                break
            generated.append(nxt)
            logits = self._forward([nxt])
        fed = ControlToken.SPEAK.value + tok.decode(generated, skip_special_tokens=False)
        self._messages.append({"role": "assistant", "content": self._content(fed)})
        self._fed += fed
        return " ".join(tok.decode(generated, skip_special_tokens=True).split())


def _to(value: Any, device: Any, dtype: Any) -> Any:
    """Tensors onto the model's device; floating ones (pixels, mel features) in its dtype."""
    if not hasattr(value, "to"):
        return value
    return value.to(device, dtype) if value.is_floating_point() else value.to(device)


def _align(fed: str, rendered: str) -> int | None:
    """Where the new text starts in ``rendered``, given the text already fed.

    Usually ``rendered`` starts with ``fed``. Some templates put a space the generation
    prompt lacks ("Assistant:" vs "Assistant: <|speak|>..."): a difference in whitespace
    only is accepted (the cache keeps what was fed); anything else is None (rebuild).
    """
    if rendered.startswith(fed):
        return len(fed)
    target = "".join(fed.split())
    seen = 0
    for i, ch in enumerate(rendered):
        if seen == len(target):
            return i
        if ch.isspace():
            continue
        if ch != target[seen]:
            return None
        seen += 1
    return len(rendered) if seen == len(target) else None


def _text_only(message: dict[str, Any]) -> dict[str, Any]:
    content = message["content"]
    if isinstance(content, list):
        content = [p for p in content if p.get("type") not in ("image", "audio")]
    return {**message, "content": content}
