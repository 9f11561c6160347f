#!/usr/bin/env bash
# Ingest on a CUDA machine (issue 17, item 5): Whisper on CUDA (CTranslate2) and OCR on
# onnxruntime-gpu, measured by `venus bench ingest` beside the CPU path, one run each,
# then the 60-minute memory benchmark on the GPU path. Prints every figure; writes the
# JSON next to the logs under ${OUT:-gpu-ingest}/. No CI machine here has a GPU, so this
# is run by hand (or by a session that is lent one):
#
#   bash scripts/gpu_ingest.sh            (MINUTES=10 by default; MINUTES=3 for a quick look)
#
# It installs the [gpu] path with onnxruntime-gpu in place of onnxruntime (scripts/setup.sh
# --gpu --onnxruntime-gpu), as scripts/gpu_check.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${MINUTES:-10}
OUT=${OUT:-gpu-ingest}
mkdir -p "$OUT"
nvidia-smi -L || { echo "gpu_ingest: no NVIDIA GPU visible (nvidia-smi -L failed)" >&2; exit 1; }
[ -x .venv/bin/python ] && .venv/bin/python -c "import onnxruntime as o, sys; \
sys.exit('CUDAExecutionProvider' not in o.get_available_providers())" 2>/dev/null \
  || bash scripts/setup.sh --gpu --onnxruntime-gpu
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
.venv/bin/python -c "
from memory.models.asr import whisper_device; from memory.models.ocr import ocr_device
print('whisper:', *whisper_device('auto')); print('ocr:', ocr_device('auto'))"
for device in cuda cpu; do
  .venv/bin/venus bench ingest --minutes "$MINUTES" --modes overlapped --device "$device" \
    --work "$OUT/lectures" --json "$OUT/ingest-$device.json" 2>&1 | tee "$OUT/ingest-$device.log"
done
.venv/bin/venus bench ingest --minutes "$MINUTES" --lectures sample --modes overlapped \
  --device cuda --compare --work "$OUT/lectures" --json "$OUT/compare-cuda.json" \
  2>&1 | tee "$OUT/compare-cuda.log"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
