#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: serve the packaged SmolLM2-135M GGUF with llama.cpp on
# CUDA and print the per-chunk step latency of the OpenAI-compatible client against it
# (the goal is 150 ms per one-second chunk), with the same figures on the CPU beside it.
#
#   bash scripts/gpu_llama_server.sh [--questions N] [--runs N]
#
# Needs: nvidia-smi, the CUDA toolkit (nvcc) for the build, a Python with this package's
# light dependencies (PYTHON, default .venv/bin/python; the benchmark imports no torch), and
# the package index or PIP_FIND_LINKS holding the llama-cpp-python 0.3.36 sdist, its build
# requirements and the [server-test] packages. llama-cpp-python is built once with
# -DGGML_CUDA=on into a wheelhouse of its own (CUDA and CPU builds must not share one),
# ~10-20 min on 16 cores. vLLM/SGLang weights cannot be fetched here, which is why
# llama.cpp serves. Not yet run on a GPU (no GPU was lent to the session that wrote it).
# Figures: JSON in ${OUT:-/tmp}/bench_server_{cuda,cpu}.json; `venus bench server` prints the tables.
set -euo pipefail
cd "$(dirname "$0")/.."

py=${PYTHON:-.venv/bin/python}
"$py" -c "import venus, httpx, numpy" 2>/dev/null \
  || { echo "gpu_llama_server: $py cannot import venus (bash scripts/setup.sh, or set PYTHON)" >&2; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi -L | grep -q "^GPU" \
  || { echo "gpu_llama_server: no NVIDIA GPU here (nvidia-smi -L)" >&2; exit 1; }
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] \
  || { echo "gpu_llama_server: nvcc not found: install the CUDA toolkit to build llama.cpp for CUDA" >&2; exit 1; }
export PATH=$PATH:/usr/local/cuda/bin
out=${OUT:-/tmp}
mkdir -p "$out"

house=${VENUS_CUDA_WHEELHOUSE:-$HOME/.cache/realtime-venus/wheelhouse-cuda}
mkdir -p "$house"
if ! ls "$house"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
  echo "gpu_llama_server: building llama-cpp-python 0.3.36 for CUDA into $house"
  CMAKE_ARGS="-DGGML_CUDA=on -DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    "$py" -m pip wheel --no-deps -w "$house" "llama-cpp-python==0.3.36"
fi
"$py" -m pip install -q --force-reinstall --no-deps --find-links "$house" --only-binary llama-cpp-python "llama-cpp-python==0.3.36"
"$py" -m pip install -q --find-links "$house" --only-binary llama-cpp-python -e ".[server-test]"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "== CUDA (all layers on the GPU) =="
"$py" -m venus bench server --n-gpu-layers -1 --clients "$@" --json "$out/bench_server_cuda.json"
echo "== CPU (same build, no layers on the GPU) =="
"$py" -m venus bench server --n-gpu-layers 0 "$@" --json "$out/bench_server_cpu.json"
"$py" - "$out" <<'PY'
import json, sys
for kind in ("cuda", "cpu"):
    d = json.load(open(f"{sys.argv[1]}/bench_server_{kind}.json"))
    goal = "meets" if d["request_ms_p95"] <= 150 else "misses"
    print(f"{kind}: per-chunk step p50 {d['request_ms_p50']:.0f} ms, p95 {d['request_ms_p95']:.0f} ms "
          f"({goal} the 150 ms goal at p95); answered {d['answered']}/{d['questions']}")
PY
