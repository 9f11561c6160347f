#!/usr/bin/env bash
# The end-of-turn model, Smart Turn v3.2 (BSD-2, Daily), taken from the pipecat-ai wheel
# (downloaded with pip, never installed: none of pipecat's dependencies come along) into
# the environment's data folder:
#
#   .venv/share/venus/turn/smart-turn-v3.2-cpu.onnx   the model (8.7 MB, ONNX, CPU)
#   .venv/share/venus/turn/LICENSE                    the wheel's licence (BSD 2-Clause)
#
# Idempotent: nothing is fetched when the model is there. venus.perception.turn reads it
# (VENUS_TURN_DATA overrides the folder, here and there).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
DEST=${VENUS_TURN_DATA:-$("$PY" -c 'import sys; print(sys.prefix)')/share/venus/turn}
PIPECAT=pipecat-ai==1.14.0
MODEL=smart-turn-v3.2-cpu.onnx

if [ -f "$DEST/$MODEL" ] && [ -f "$DEST/LICENSE" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "turn model: $MODEL from the $PIPECAT wheel (no install) -> $DEST"
"$PY" -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "$PIPECAT"
"$PY" - "$tmp" "$DEST" "$MODEL" <<'PY'
import sys
import zipfile
from pathlib import Path

tmp, dest, model = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
wanted = {f"pipecat/audio/turn/smart_turn/data/{model}": model}
(wheel,) = tmp.glob("pipecat_ai-*.whl")
with zipfile.ZipFile(wheel) as zf:
    names = zf.namelist()
    wanted.update({n: "LICENSE" for n in names if n.endswith(".dist-info/licenses/LICENSE")})
    missing = [n for n in wanted if n not in names]
    if missing or len(wanted) != 2:
        sys.exit(f"turn model: {wheel.name} lacks {missing or 'a LICENSE'}; "
                 f"pin a pipecat-ai version that ships {model}")
    dest.mkdir(parents=True, exist_ok=True)
    for name, target in wanted.items():
        part = dest / (target + ".part")  # written whole, then renamed: never half a model
        part.write_bytes(zf.read(name))
        part.replace(dest / target)
PY
