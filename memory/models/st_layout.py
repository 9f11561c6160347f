"""A sentence-transformers model directory read faithfully, without sentence-transformers.

``modules.json`` lists the pipeline: a ``Transformer`` (the encoder, at the root or in
``0_Transformer``), a ``Pooling`` (``1_Pooling/config.json``: one or more of cls, mean,
max, mean_sqrt_len_tokens, weightedmean, lasttoken, in either config style, and
``include_prompt``), optional ``Dense`` layers (``2_Dense``: a linear map and its
activation, weights in ``model.safetensors`` or ``pytorch_model.bin``) and an optional
``Normalize``. ``config_sentence_transformers.json`` holds the ``prompts`` and the
``default_prompt_name``; ``sentence_bert_config.json`` the ``max_seq_length`` and
``do_lower_case``. A module this reader does not know is refused by name: a wrong
vector is worse than an error. A bare Hugging Face encoder reads as mean pooling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.errors import ModelUnavailableError

__all__ = ["DenseLayer", "Layout", "pool", "read_layout"]

# sentence-transformers' order when several pooling modes are on (their outputs are
# concatenated), and the old config's flag for each.
_MODES = {"cls": "pooling_mode_cls_token", "max": "pooling_mode_max_tokens",
          "mean": "pooling_mode_mean_tokens",
          "mean_sqrt_len_tokens": "pooling_mode_mean_sqrt_len_tokens",
          "weightedmean": "pooling_mode_weightedmean_tokens",
          "lasttoken": "pooling_mode_lasttoken"}
_ACTIVATIONS = ("Tanh", "Identity", "ReLU", "GELU", "Sigmoid", "SiLU", "LeakyReLU")


@dataclass
class DenseLayer:
    """``activation(x @ weight.T + bias)``, as a sentence-transformers Dense module."""

    weight: Any
    bias: Any | None
    activation: str
    residual: bool = False

    def to(self, device: str) -> DenseLayer:
        bias = None if self.bias is None else self.bias.to(device)
        return DenseLayer(self.weight.to(device), bias, self.activation, self.residual)

    def __call__(self, x):
        import torch

        out = torch.nn.functional.linear(x, self.weight, self.bias)
        out = getattr(torch.nn, self.activation)()(out)
        return out + x if self.residual and x.shape == out.shape else out


@dataclass
class Layout:
    encoder_dir: Path
    modes: tuple[str, ...] = ("mean",)
    include_prompt: bool = True
    dense: list[DenseLayer] = field(default_factory=list)
    normalize: bool = False
    prompts: dict[str, str] = field(default_factory=dict)
    default_prompt_name: str | None = None
    max_seq_length: int | None = None
    lower_case: bool = False


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def read_layout(model_dir: Path) -> Layout:
    modules = _json(model_dir / "modules.json")
    if not isinstance(modules, list) or not modules:
        return Layout(model_dir, **_st_config(model_dir, model_dir))
    layout = Layout(model_dir)
    for module in sorted(modules, key=lambda m: int(m.get("idx", 0))):
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        where = model_dir / module.get("path", "")
        if kind == "Transformer":
            layout.encoder_dir = where
        elif kind == "Pooling":
            layout.modes, layout.include_prompt = _pooling(_json(where / "config.json"))
        elif kind == "Dense":
            layout.dense.append(_dense(where))
        elif kind == "Normalize":
            layout.normalize = True
        else:
            raise ModelUnavailableError(
                f"{model_dir} uses a sentence-transformers module this embedder does not run "
                f"({module.get('type')}); use a model made of Transformer, Pooling, Dense and "
                f"Normalize modules")
    for key, value in _st_config(model_dir, layout.encoder_dir).items():
        setattr(layout, key, value)
    return layout


def _st_config(model_dir: Path, encoder_dir: Path) -> dict[str, Any]:
    st = _json(model_dir / "config_sentence_transformers.json")
    bert = _json(encoder_dir / "sentence_bert_config.json") or _json(
        model_dir / "sentence_bert_config.json")
    return {"prompts": dict(st.get("prompts") or {}),
            "default_prompt_name": st.get("default_prompt_name"),
            "max_seq_length": bert.get("max_seq_length"),
            "lower_case": bool(bert.get("do_lower_case", False))}


def _pooling(config: dict[str, Any]) -> tuple[tuple[str, ...], bool]:
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        modes = (mode,)
    elif isinstance(mode, list):
        modes = tuple(mode)
    else:
        modes = tuple(m for m, flag in _MODES.items() if config.get(flag))
    unknown = [m for m in modes if m not in _MODES]
    if unknown:
        raise ModelUnavailableError(f"unknown pooling mode(s) {unknown}; this embedder runs "
                                    f"{', '.join(_MODES)}")
    return modes or ("mean",), bool(config.get("include_prompt", True))


def _dense(where: Path) -> DenseLayer:
    import torch

    config = _json(where / "config.json")
    name = str(config.get("activation_function", "torch.nn.modules.activation.Tanh"))
    activation = name.rsplit(".", 1)[-1]
    if not name.startswith("torch.") or activation not in _ACTIVATIONS:
        raise ModelUnavailableError(f"{where}: the Dense activation {name} is not one of torch's "
                                    f"{', '.join(_ACTIVATIONS)}")
    if (where / "model.safetensors").is_file():
        from safetensors.torch import load_file

        state = load_file(str(where / "model.safetensors"))
    elif (where / "pytorch_model.bin").is_file():
        state = torch.load(where / "pytorch_model.bin", map_location="cpu", weights_only=True)
    else:
        raise ModelUnavailableError(f"{where} holds no Dense weights (model.safetensors or "
                                    f"pytorch_model.bin); the model directory is incomplete")
    return DenseLayer(state["linear.weight"], state.get("linear.bias"), activation,
                      bool(config.get("use_residual", False)))


def pool(hidden, mask, modes: tuple[str, ...], prompt_length: int = 0):
    """sentence-transformers' pooling over right-padded ``hidden`` (batch, tokens, dim)."""
    import torch

    if prompt_length:
        mask = mask.clone()
        mask[:, :prompt_length] = 0
    m = mask.unsqueeze(-1).to(hidden.dtype)
    out = []
    for mode in modes:
        if mode == "cls":
            first = mask.to(torch.int).argmax(dim=1)
            out.append(hidden[torch.arange(hidden.shape[0]), first])
        elif mode == "max":
            out.append(hidden.masked_fill(m == 0, float("-inf")).max(dim=1).values)
        elif mode in ("mean", "mean_sqrt_len_tokens"):
            count = m.sum(dim=1).clamp(min=1e-9)
            out.append((hidden * m).sum(dim=1) / (count if mode == "mean" else count.sqrt()))
        elif mode == "weightedmean":
            weights = torch.arange(1, hidden.shape[1] + 1, dtype=hidden.dtype).view(1, -1, 1) * m
            out.append((hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9))
        else:  # lasttoken
            last = mask.shape[1] - 1 - mask.flip(1).to(torch.int).argmax(dim=1)
            out.append(hidden[torch.arange(hidden.shape[0]), last] * m[torch.arange(
                hidden.shape[0]), last])
    return torch.cat(out, dim=-1)
