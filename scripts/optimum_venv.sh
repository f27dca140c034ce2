#!/usr/bin/env bash
# Makes (once per machine, cached) the test-only venv of tests/python/optimum/ from
# requirements/optimum.txt (Optimum, optimum-onnx, transformers, torch, real ONNX Runtime as
# the oracle) and prints its Python. Rebuilt when the pins or the base Python change.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${ONNX_LIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-light}
REQS=$ROOT/requirements/optimum.txt
VENV=$CACHE/optimum-venv
log() { echo "[optimum] $*" >&2; }
base_python=$("$ROOT/.venv/bin/python" -c 'import sys; print(sys._base_executable)' 2>/dev/null ||
  command -v python3)
stamp=$( ("$base_python" --version 2>&1; cat "$REQS") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.onnx-light-optimum" 2>/dev/null)" != "$stamp" ]; then
  log "creating $VENV (optimum, transformers, torch, onnxruntime: test oracles only, ~6 GB)"
  rm -rf "$VENV"
  "$base_python" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS" >&2 || {
    log "ERROR: installing requirements/optimum.txt failed (PyPI must be reachable)"
    exit 1
  }
  echo "$stamp" >"$VENV/.onnx-light-optimum"
fi
echo "$VENV/bin/python"
