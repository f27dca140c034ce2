#!/usr/bin/env bash
# Makes (once per machine, cached) a test-only venv from requirements/NAME.txt and prints its
# Python: $ONNX_LIGHT_CACHE/NAME-venv, rebuilt when the pins or the base Python change.
#   scripts/test_venv.sh genai     # onnxruntime-genai, torch, transformers (tests/python/genai)
#   scripts/test_venv.sh optimum   # Optimum, optimum-onnx, torch, ORT (tests/python/optimum)
# Test oracles only (~6 GB each with torch's CUDA build, the only torch PyPI serves; it runs
# on the CPU); never .venv, and onnx-light never imports any of it. Progress on stderr.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${ONNX_LIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-light}
NAME=${1:?usage: scripts/test_venv.sh NAME (requirements/NAME.txt)}
REQS=$ROOT/requirements/$NAME.txt
VENV=$CACHE/$NAME-venv
log() { echo "[$NAME] $*" >&2; }
[ -f "$REQS" ] || { log "ERROR: no $REQS"; exit 1; }
base_python=$("$ROOT/.venv/bin/python" -c 'import sys; print(sys._base_executable)' 2>/dev/null ||
  command -v python3)
stamp=$( ("$base_python" --version 2>&1; cat "$REQS") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.onnx-light-$NAME" 2>/dev/null)" != "$stamp" ]; then
  log "creating $VENV from requirements/$NAME.txt (test oracles only, ~6 GB)"
  rm -rf "$VENV"
  "$base_python" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS" >&2 || {
    log "ERROR: installing requirements/$NAME.txt failed (PyPI must be reachable)"
    exit 1
  }
  echo "$stamp" >"$VENV/.onnx-light-$NAME"
fi
echo "$VENV/bin/python"
