#!/usr/bin/env bash
# Quick start, command 1: set up the environment, then run the main job on the embedded
# defaults (makes the sample lecture if missing, streams it, answers questions about it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1
exec .venv/bin/venus demo "$@"
