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
# One line per optional wheel: "pip requirement|environment for the build" (the
# environment part may be empty). Add new ones here, with the extra that uses them.
OPTIONAL_WHEELS=(
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
  req=${entry%%|*} env_part=${entry#*|}
  [ "$env_part" = "$entry" ] && env_part=""
  if built "$req"; then
    [ "$mode" = list ] && { echo "built    $req"; continue; }
  else
    case "$mode" in
      list) echo "missing  $req"; continue ;;
      cached) echo "wheels: $req is not built on this machine (bash scripts/wheels.sh build); its tests will skip"; continue ;;
      build)
        echo "wheels: building $req once into $house (this can take a long time)"
        # shellcheck disable=SC2086
        env $env_part "$py" -m pip wheel --no-deps -w "$house" "$req" ;;
      *) echo "wheels: unknown mode $mode (build, cached or list)" >&2; exit 2 ;;
    esac
  fi
  "$py" -m pip install -q --no-index --find-links "$house" "$req"
done
