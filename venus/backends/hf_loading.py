"""Loading a Hugging Face model for a frontend: local paths only, family detection,
control tokens.

Above `base`. A model directory is read from disk with ``local_files_only=True``; a
missing or incomplete directory is a `venus.errors.ConfigError` naming the path and
what to pass. The family comes from ``config.json`` (``model_type``, then
``architectures``): the Qwen2.5-Omni thinker, Qwen2.5-VL / Qwen2-VL, SmolVLM (and its
Idefics3 ancestor), or any causal chat model. ``<|listen|>``, ``<|speak|>`` and
``<|turn_eos|>`` are added to the tokenizer as special tokens when missing, and the
embeddings grow only if the new ids do not fit (Qwen checkpoints have spare rows).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.models.embedder import no_progress_bar
from venus.backends.base import CONTROL_TOKENS, BackendError
from venus.errors import ConfigError

__all__ = ["FAMILIES", "LoadedModel", "add_control_tokens", "detect_family", "load_model",
           "read_model_config", "wrap_model"]

logger = logging.getLogger(__name__)

FAMILIES: dict[str, str] = {
    "qwen2_5_omni_thinker": "omni",
    "qwen2_5_omni": "omni",
    "qwen2_5_vl": "qwen_vl",
    "qwen2_vl": "qwen_vl",
    "smolvlm": "smolvlm",
    "idefics3": "smolvlm",
}
"""config.json ``model_type`` -> adapter family; anything else is a text chat model."""

_ARCHITECTURES = {
    "Qwen2_5OmniThinkerForConditionalGeneration": "omni",
    "Qwen2_5_VLForConditionalGeneration": "qwen_vl",
    "Qwen2VLForConditionalGeneration": "qwen_vl",
    "SmolVLMForConditionalGeneration": "smolvlm",
    "Idefics3ForConditionalGeneration": "smolvlm",
}

_DTYPES = {"float32", "bfloat16", "float16"}


def read_model_config(path: str | Path) -> dict[str, Any]:
    """``config.json`` of a local model directory, or a `ConfigError` saying what to pass."""
    directory = Path(path).expanduser()
    config = directory / "config.json"
    if not config.is_file():
        what = "does not exist" if not directory.exists() else "has no config.json"
        raise ConfigError(
            f"the model path {directory} {what}: pass model_path= to a local Hugging Face model "
            f"directory (one written by save_pretrained or fetched with `hf download`); "
            f"models are never downloaded at run time")
    try:
        return json.loads(config.read_text())
    except ValueError as exc:
        raise ConfigError(f"{config} is not valid JSON ({exc}); re-download or re-save the model") \
            from exc


def detect_family(config: dict[str, Any]) -> str:
    """``omni``, ``qwen_vl``, ``smolvlm`` or ``text``."""
    family = FAMILIES.get(str(config.get("model_type", "")))
    if family:
        return family
    for arch in config.get("architectures") or ():
        if arch in _ARCHITECTURES:
            return _ARCHITECTURES[arch]
    return "text"


@dataclass
class LoadedModel:
    """A model ready for `TransformersBackend`: weights, tokenizer, family, control ids."""

    model: Any
    tokenizer: Any
    family: str
    path: Path
    control_ids: dict[str, int]


def _model_class(family: str, model_type: str) -> Any:
    import transformers as tf

    if family == "omni":
        return (tf.Qwen2_5OmniForConditionalGeneration if model_type == "qwen2_5_omni"
                else tf.Qwen2_5OmniThinkerForConditionalGeneration)
    if family == "qwen_vl":
        return (tf.Qwen2VLForConditionalGeneration if model_type == "qwen2_vl"
                else tf.Qwen2_5_VLForConditionalGeneration)
    if family == "smolvlm":
        return (tf.Idefics3ForConditionalGeneration if model_type == "idefics3"
                else tf.SmolVLMForConditionalGeneration)
    return tf.AutoModelForCausalLM


def _torch_dtype(dtype: str, device: str) -> Any:
    import torch

    if dtype == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    if dtype not in _DTYPES:
        raise ConfigError(f"dtype {dtype!r} is not supported; use 'auto' or one of {sorted(_DTYPES)}")
    return getattr(torch, dtype)


def load_model(path: str | Path, device: str = "cpu", dtype: str = "auto") -> LoadedModel:
    """Load weights and tokenizer from ``path`` (never the Hub) and add the control tokens."""
    config = read_model_config(path)
    directory = Path(path).expanduser()
    family = detect_family(config)
    cls = _model_class(family, str(config.get("model_type", "")))
    torch_dtype = _torch_dtype(dtype, device)
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
        with no_progress_bar():
            model = cls.from_pretrained(str(directory), local_files_only=True, dtype=torch_dtype)
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(
            f"could not load the model at {directory} as {cls.__name__} ({exc}); pass "
            f"model_path= to a complete model directory (weights, tokenizer, config.json)") from exc
    if config.get("model_type") == "qwen2_5_omni":
        model = model.thinker  # the talker (speech out) is not used by a frontend
    model.eval().to(device)
    control_ids = add_control_tokens(tokenizer, model)
    logger.info("loaded %s (%s) from %s", cls.__name__, family, directory)
    return LoadedModel(model, tokenizer, family, directory, control_ids)


def wrap_model(model: Any, tokenizer: Any, name: str = "(in memory)") -> LoadedModel:
    """A model and tokenizer already in memory (built from a config, fine-tuned in this
    process, ...) made ready for `TransformersBackend`: family and control tokens."""
    config = model.config.to_dict()
    model.eval()
    return LoadedModel(model, tokenizer, detect_family(config), Path(name),
                       add_control_tokens(tokenizer, model))


_MEANINGS = {"<|listen|>": "listen silently", "<|speak|>": "speak now",
             "<|turn_eos|>": "end of turn"}


def add_control_tokens(tokenizer: Any, model: Any) -> dict[str, int]:
    """Make each control token one special token; grow the embeddings if needed.

    Rows for tokens the model never saw start as the mean embedding of a plain-words
    gloss ("listen silently", ...), in and out, so an untrained model's constrained
    choice leans on what the words mean rather than on random rows.
    """
    missing = [t for t in CONTROL_TOKENS if t not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_special_tokens({"additional_special_tokens": missing},
                                     replace_extra_special_tokens=False)
    ids = {t: int(tokenizer.convert_tokens_to_ids(t)) for t in CONTROL_TOKENS}
    for token, token_id in ids.items():
        if tokenizer.convert_ids_to_tokens(token_id) != token:
            raise BackendError(f"the tokenizer could not hold {token} as one token; "
                               f"use a tokenizer that supports added special tokens")
    if max(ids.values()) >= model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    if missing:
        _init_from_gloss(tokenizer, model, {t: ids[t] for t in missing})
    return ids


def _init_from_gloss(tokenizer: Any, model: Any, ids: dict[str, int]) -> None:
    import torch

    tables = [model.get_input_embeddings().weight]
    out = model.get_output_embeddings()
    if out is not None and out.weight.data_ptr() != tables[0].data_ptr():
        tables.append(out.weight)
    with torch.no_grad():
        for token, token_id in ids.items():
            gloss = [i for i in tokenizer(_MEANINGS[token], add_special_tokens=False).input_ids
                     if i != tokenizer.unk_token_id and i < tables[0].shape[0]]
            for table in tables:
                if gloss:
                    table[token_id] = table[gloss].mean(dim=0)
