#!/usr/bin/env bash
# Checks the declared lower bounds: installs the LOWEST release of every direct
# dependency that pyproject.toml allows (uv's --resolution lowest-direct; transitive
# dependencies resolve as usual) into a fresh virtual environment, then runs the test
# suite against it. Not part of the normal CI run (it downloads old releases); run it
# when a bound changes, and paste its summary into the release notes.
#
#   bash scripts/min_versions.sh [DIR] [-- PYTEST ARGS]   (default DIR: /tmp/venus-min,
#                                                          pytest args: -m "not slow")
#
# torch is the exception: it is installed first, as scripts/setup.sh does (the CPU build
# on machines without CUDA), at TORCH_SPEC (default torch==2.13.0) and held there, since
# every other torch release is a multi-GB download. So torch's own floor is NOT checked.
# Writes DIR/min-versions.txt (what was installed) and DIR/pytest.log.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dir=/tmp/venus-min
if [ $# -gt 0 ] && [ "$1" != "--" ]; then dir=$1; shift; fi
[ "${1:-}" = "--" ] && shift
pytest_args=("$@")
[ ${#pytest_args[@]} -gt 0 ] || pytest_args=(-m "not slow")
extras=${MIN_EXTRAS:-cpu,dev,notebooks,demo,voices}
PYTHON=${PYTHON:-python3}

rm -rf "$dir/.venv"
mkdir -p "$dir"
"$PYTHON" -m venv "$dir/.venv"
py=$dir/.venv/bin/python
"$py" -m pip install -q --upgrade pip uv
torch_spec=${TORCH_SPEC:-torch==2.13.0}
# A CPU wheel already on this machine (pip's find-links) first, else PyTorch's CPU index.
if ! "$py" -m pip install -q --no-index --no-deps "$torch_spec" >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  "$py" -m pip install -q "$torch_spec" ${PIP_TORCH_ARGS:---index-url https://download.pytorch.org/whl/cpu}
fi
"$py" -m pip install -q "$torch_spec"  # torch's own dependencies
torch_version=$("$py" -c "from importlib.metadata import version; print(version('torch'))")
echo "torch==$torch_version" > "$dir/constraints.txt"
echo "min-versions: torch held at $torch_version; lowest allowed release of every other direct dependency"
"$py" -m uv pip install --python "$py" --resolution lowest-direct -c "$dir/constraints.txt" \
  ${UV_ARGS:-} "realtime-venus[$extras] @ file://$repo"
"$py" -m uv pip freeze --python "$py" > "$dir/min-versions.txt"
echo "min-versions: installed (lowest-direct):"
"$py" - "$repo/pyproject.toml" "$dir/min-versions.txt" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
names = {re.split(r"[<>=!~\[; ]", d, 1)[0].lower().replace("_", "-")
         for d in project["dependencies"] + sum(project["optional-dependencies"].values(), [])
         if not d.startswith("realtime-venus")}
for line in open(sys.argv[2]):
    name = line.split("==")[0].strip().lower().replace("_", "-")
    if name in names:
        print("  " + line.strip())
PY
cd "$repo"
set +e
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$py" -m pytest -q -p no:cacheprovider "${pytest_args[@]}" \
  2>&1 | tee "$dir/pytest.log" | tail -40
rc=${PIPESTATUS[0]}
echo "min-versions: pytest exit $rc (log: $dir/pytest.log, versions: $dir/min-versions.txt)"
exit "$rc"
