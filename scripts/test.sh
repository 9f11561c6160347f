#!/usr/bin/env bash
# Quick start, command 2: set up the environment, then run the whole test suite.
# Extra arguments go to pytest (e.g. -m "not slow" to skip the end-to-end tests).
# The tests need some system packages (scripts/setup.sh, TEST_SYSTEM_PACKAGES) and use
# the optional wheels already built on this machine (scripts/wheels.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-test-system-packages --optional-wheels cached
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
