#!/usr/bin/env bash
# Creates ./.venv and installs realtime-venus with every extra. Idempotent: it re-installs
# only when pyproject.toml or this script changed.
#
# torch goes in first: a plain resolve of 'torch' pulls a multi-GB CUDA build. Override
# with TORCH_SPEC (and PIP_TORCH_ARGS, e.g. "--index-url https://download.pytorch.org/whl/cpu").
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
TORCH_SPEC=${TORCH_SPEC:-torch==2.13.0}

# System packages the browser tests need (Debian/Ubuntu, as root); skipped elsewhere.
need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: apt-get install ${need_apt[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null \
    || echo "setup: warning: could not install ${need_apt[*]} (browser tests will be skipped)"
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=.venv/.venus-installed
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "setup: installing into .venv (torch first, then realtime-venus[all])"
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "is ignored" || true
# shellcheck disable=SC2086
.venv/bin/python -m pip install -q "$TORCH_SPEC" ${PIP_TORCH_ARGS:-} 2>&1 | grep -v "is ignored" || true
.venv/bin/python -m pip install -q -e ".[all]" 2>&1 | grep -v "is ignored" || true
.venv/bin/python -c "import torch, venus, memory" # fail loudly if the install did not work
echo "$want" > "$stamp"
