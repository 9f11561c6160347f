#!/usr/bin/env bash
# Optional wheels that have no binary on PyPI for this platform and take long to build
# (e.g. llama-cpp-python: 30-60 min on 2 cores). They are built ONCE per machine into a
# wheelhouse and installed from there; CI never builds them on every run.
#
#   bash scripts/wheels.sh build    build the missing ones into the wheelhouse, then install
#   bash scripts/wheels.sh cached   install only those already in the wheelhouse (CI, tests)
#   bash scripts/wheels.sh list     show what is wanted and what is built
#
# Wheelhouse: $VENUS_WHEELHOUSE (default ~/.cache/realtime-venus/wheelhouse). Tests that
# need one of these skip with a message naming `bash scripts/wheels.sh build` when it is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# ---------------------------------------------------------------------------------------
# One line per optional wheel: "pip requirement|extra that uses it|VAR=value|VAR=value..."
# (the extra and the build environment may be empty; a value may contain spaces). Once the
# wheel is built, the extra is installed with it (its other packages from the index; the
# wheel itself only from the wheelhouse, never built on the fly).
OPTIONAL_WHEELS=(
  # llama.cpp's OpenAI-compatible server for tests/test_server_llama_cpp.py and `venus bench
  # server`. GGML_NATIVE=OFF: the native probe fails on some CPUs; AVX2/FMA/F16C as on x86-64
  # machines of the last decade (set CMAKE_ARGS="-DGGML_CUDA=on" for a CUDA build instead).
  "llama-cpp-python[server]==0.3.36|server-test|CMAKE_ARGS=${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF}"
)
# ---------------------------------------------------------------------------------------

mode=${1:-cached}
house=${VENUS_WHEELHOUSE:-$HOME/.cache/realtime-venus/wheelhouse}
mkdir -p "$house"
py=.venv/bin/python
[ -x "$py" ] || { echo "wheels: run bash scripts/setup.sh first (no .venv)" >&2; exit 1; }

built() {  # is a wheel for this requirement already in the wheelhouse?
  "$py" - "$house" "$1" <<'PY'
import sys
from pathlib import Path
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
house, req = Path(sys.argv[1]), Requirement(sys.argv[2])
for wheel in house.glob("*.whl"):
    name, version, _build, _tags = parse_wheel_filename(wheel.name)
    if canonicalize_name(name) == canonicalize_name(req.name) and req.specifier.contains(version, prereleases=True):
        sys.exit(0)
sys.exit(1)
PY
}

for entry in ${OPTIONAL_WHEELS[@]+"${OPTIONAL_WHEELS[@]}"}; do
  IFS='|' read -r -a fields <<< "$entry"
  req=${fields[0]} extra=${fields[1]:-} build_env=("${fields[@]:2}")
  name=${req%%[[<>=!~ ;]*}
  if built "$req"; then
    [ "$mode" = list ] && { echo "built    $req"; continue; }
  else
    case "$mode" in
      list) echo "missing  $req"; continue ;;
      cached) echo "wheels: $req is not built on this machine (bash scripts/wheels.sh build); its tests will skip"; continue ;;
      build)
        echo "wheels: building $req once into $house (this can take a long time)"
        env ${build_env[@]+"${build_env[@]}"} "$py" -m pip wheel --no-deps -w "$house" "$req" ;;
      *) echo "wheels: unknown mode $mode (build, cached or list)" >&2; exit 2 ;;
    esac
  fi
  if [ -n "$extra" ]; then
    "$py" -m pip install -q --find-links "$house" --only-binary "$name" -e ".[$extra]"
  else
    "$py" -m pip install -q --find-links "$house" --only-binary "$name" "$req"
  fi
done
