#!/usr/bin/env bash
# Creates ./.venv and installs realtime-venus into it. Idempotent: it re-installs only
# when pyproject.toml, this script or the options changed. Every failing step stops the
# script with pip's own error (nothing is hidden).
#
#   bash scripts/setup.sh                  CPU machine: CPU torch, faiss-cpu, realtime-venus[all]
#   bash scripts/setup.sh --gpu            CUDA machine: CUDA torch, faiss-gpu-cu12 ([all-gpu])
#   bash scripts/setup.sh --gpu --onnxruntime-gpu   also swap onnxruntime for onnxruntime-gpu
#   bash scripts/setup.sh --with-browser   also apt-get install Chromium (the app's browser tests)
#   bash scripts/setup.sh --with-test-system-packages   every Debian package the tests need
#   bash scripts/setup.sh --optional-wheels cached|build   install the optional wheels of
#                                          scripts/wheels.sh from the machine's wheelhouse
#
# Torch is installed first, on its own: a plain resolve of 'torch' from PyPI on Linux is
# the multi-GB CUDA build. Without --gpu (and with no GPU seen), the CPU build is taken:
#   1. a CPU wheel already on this machine (pip's find-links or a wheelhouse), no download;
#   2. else PyTorch's CPU index, https://download.pytorch.org/whl/cpu.
# Override with TORCH_SPEC (default torch==2.13.0) and PIP_TORCH_ARGS (extra pip
# arguments, e.g. "--index-url https://download.pytorch.org/whl/cu126"); when either is
# set it is used exactly as given. TORCH_VARIANT=cpu|cuda forces the choice.
set -euo pipefail
cd "$(dirname "$0")/.."

# ---------------------------------------------------------------------------------------
# System packages (Debian/Ubuntu names). Installed only when asked for, as root with apt.
# BROWSER_PACKAGES: the Gradio app's headless-browser tests.
# TEST_SYSTEM_PACKAGES: everything the test suite needs (scripts/test.sh asks for these).
# Add a package the tests need here, with the reason.
BROWSER_PACKAGES=(chromium)
# flite: the Flite voice family (memory.models.voices); pocketsphinx-testdata: real
# recorded speech (LibriVox, command clips) for the duplex evaluation (venus.eval.voices).
VOICE_PACKAGES=(flite pocketsphinx-testdata)
TEST_SYSTEM_PACKAGES=("${BROWSER_PACKAGES[@]}" "${VOICE_PACKAGES[@]}")
# ---------------------------------------------------------------------------------------

PYTHON=${PYTHON:-python3}
DEFAULT_TORCH=torch==2.13.0
CPU_INDEX=https://download.pytorch.org/whl/cpu

gpu=0 ort_gpu=0 optional_wheels=no apt_packages=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) gpu=1 ;;
    --onnxruntime-gpu) ort_gpu=1 ;;
    --with-browser) apt_packages+=("${BROWSER_PACKAGES[@]}") ;;
    --with-test-system-packages) apt_packages+=("${TEST_SYSTEM_PACKAGES[@]}") ;;
    --optional-wheels) optional_wheels=${2:?--optional-wheels needs no, cached or build}; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "setup: unknown option $1 (see bash scripts/setup.sh --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "setup: error: $*" >&2; exit 1; }

install_system_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "install ${missing[*]} with your system's package manager (no apt-get here)"
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  echo "setup: apt-get install ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
}

has_cuda() {
  case "${TORCH_VARIANT:-auto}" in cpu) return 1 ;; cuda) return 0 ;; esac
  [ "$gpu" = 1 ] && return 0
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q "^GPU"
}

pip() { .venv/bin/python -m pip "$@"; }

torch_ok() {  # the installed torch matches the spec and (on CPU machines) is a CPU build
  .venv/bin/python - "$1" "$2" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
spec, want_cpu = sys.argv[1], sys.argv[2] == "cpu"
want = spec.split("==", 1)[1] if "==" in spec else None
got = version("torch")
if want and got.split("+")[0] != want:
    sys.exit(1)
import torch
sys.exit(1 if want_cpu and torch.version.cuda is not None else 0)
PY
}

install_torch() {
  if [ -n "${TORCH_SPEC:-}" ] || [ -n "${PIP_TORCH_ARGS:-}" ]; then
    echo "setup: torch as given: ${TORCH_SPEC:-$DEFAULT_TORCH} ${PIP_TORCH_ARGS:-}"
    # shellcheck disable=SC2086
    pip install -q "${TORCH_SPEC:-$DEFAULT_TORCH}" ${PIP_TORCH_ARGS:-}
    return
  fi
  if has_cuda; then
    torch_ok "$DEFAULT_TORCH" cuda && return 0
    echo "setup: CUDA machine: $DEFAULT_TORCH from PyPI (the CUDA build)"
    pip install -q "$DEFAULT_TORCH"
    return
  fi
  torch_ok "$DEFAULT_TORCH" cpu && return 0
  echo "setup: no CUDA here: the CPU build of $DEFAULT_TORCH"
  local local_wheel=0
  # --no-index: only wheels on this machine (pip's find-links); fails at once elsewhere.
  if pip install -q --no-index --no-deps "$DEFAULT_TORCH" >/dev/null 2>&1; then
    pip install -q "$DEFAULT_TORCH"  # its dependencies, from the usual index
    torch_ok "$DEFAULT_TORCH" cpu && local_wheel=1
  fi
  if [ "$local_wheel" = 1 ]; then
    echo "setup: took the CPU wheel already on this machine (pip's find-links)"
  else
    pip install -q --force-reinstall "$DEFAULT_TORCH" --index-url "$CPU_INDEX"
  fi
  torch_ok "$DEFAULT_TORCH" cpu || die "a CUDA build of torch got installed on a machine without CUDA; set TORCH_SPEC / PIP_TORCH_ARGS"
}

swap_onnxruntime_gpu() {
  # faster-whisper requires 'onnxruntime'; onnxruntime-gpu ships the same package folder.
  # Replace one with the other (same version) so exactly one copy stays installed.
  local v
  v=$(.venv/bin/python -c "from importlib.metadata import version; print(version('onnxruntime'))" 2>/dev/null || true)
  [ -n "$v" ] || return 0
  echo "setup: replacing onnxruntime $v with onnxruntime-gpu $v"
  pip uninstall -q -y onnxruntime
  pip install -q --no-deps "onnxruntime-gpu==$v"
}

[ ${#apt_packages[@]} -gt 0 ] && install_system_packages "${apt_packages[@]}"

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv || die "could not create .venv with $PYTHON (Python 3.10+ with venv)"
stamp=.venv/.venus-installed
want=$( (cat pyproject.toml scripts/setup.sh; echo "$gpu $ort_gpu ${TORCH_SPEC:-} ${PIP_TORCH_ARGS:-} ${TORCH_VARIANT:-}") | sha256sum | cut -c1-16)
# the real speech and room impulses of the duplex evaluation (scripts/speech_data.sh) and
# the end-of-turn model, Smart Turn v3.2, from the pipecat-ai wheel (scripts/turn_model.sh)
optional() {
  bash scripts/speech_data.sh
  bash scripts/turn_model.sh
  [ "$optional_wheels" = no ] || bash scripts/wheels.sh "$optional_wheels"
}
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  optional
  exit 0
fi
extras=all
[ "$gpu" = 1 ] && extras=all-gpu  # faiss-gpu-cu12 only when asked: faiss-cpu is the default
echo "setup: installing into .venv (torch first, then realtime-venus[$extras])"
pip install -q --upgrade pip
install_torch
pip install -q -e ".[$extras]"
[ "$ort_gpu" = 1 ] && swap_onnxruntime_gpu
.venv/bin/python -c "import torch, faiss, venus, memory" || die "the install did not work (see above)"
echo "$want" > "$stamp"
optional
