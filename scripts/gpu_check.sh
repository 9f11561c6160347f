#!/usr/bin/env bash
# The GPU checks, for a CUDA machine (none of this project's CI machines has one):
# installs the [gpu] path in a fresh environment (CUDA torch from PyPI, faiss-gpu-cu12
# instead of faiss-cpu, cuBLAS/cuDNN wheels for CTranslate2), shows what each seam runs
# on, and runs the GPU tests (FAISS search on the GPU against numpy; Whisper on CUDA).
#
#   bash scripts/gpu_check.sh            (add --onnxruntime-gpu to also swap onnxruntime)
set -euo pipefail
cd "$(dirname "$0")/.."
nvidia-smi -L || { echo "gpu_check: no NVIDIA GPU visible (nvidia-smi -L failed)" >&2; exit 1; }
bash scripts/setup.sh --gpu "$@"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# CTranslate2 finds cuBLAS/cuDNN from the nvidia-* wheels through LD_LIBRARY_PATH.
nvidia_libs=$(.venv/bin/python - <<'PY'
import importlib.util, pathlib
dirs = []
for name in ("nvidia.cublas", "nvidia.cudnn"):
    spec = importlib.util.find_spec(name)
    if spec and spec.submodule_search_locations:
        dirs.append(str(pathlib.Path(next(iter(spec.submodule_search_locations))) / "lib"))
print(":".join(dirs))
PY
)
export LD_LIBRARY_PATH="${nvidia_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
.venv/bin/venus doctor
.venv/bin/python -m pytest -q -rs tests/test_gpu.py tests/test_backend_omni_scale.py
