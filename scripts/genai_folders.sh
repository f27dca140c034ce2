#!/usr/bin/env bash
# Makes (once per machine) the ONNX Runtime GenAI model-builder folders the onnx_light.genai
# tests generate from, and prints their parent folder. Idempotent and cached:
#   - a test-only venv $CACHE/genai-venv from requirements/genai.txt (torch, transformers,
#     onnxruntime-genai; ~6 GB, about 2 minutes from PyPI; rebuilt when the pins change;
#     scripts/test_venv.sh genai);
#   - tests/python/genai/make_folders.py run there: random-weight Hugging Face checkpoints of
#     small configs (no hub access), then `python -m onnxruntime_genai.models.builder` in fp32
#     and int4 for the CPU, into $CACHE/genai-folders/<stamp>/ARCH-PRECISION.
# With --bench: the benchmark's larger folders (ARCH_bench: hidden 1024, 4 layers, vocabulary
# 32000) for bench/genai_vs_ort.py, into $CACHE/genai-bench/<stamp>.
# Prints nothing else on stdout (progress goes to stderr). The oracle's Python is
# $CACHE/genai-venv/bin/python.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${ONNX_LIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onnx-light}
VENV=$CACHE/genai-venv
ARCHS=(llama qwen2 qwen3 phi3 mistral gemma gemma2)
SET=genai-folders
if [ "${1:-}" = "--bench" ]; then
  ARCHS=(llama_bench qwen2_bench phi3_bench)
  SET=genai-bench
fi
log() { echo "[genai] $*" >&2; }

"$ROOT/scripts/test_venv.sh" genai >/dev/null  # the venv (cached): requirements/genai.txt
fstamp=$( (cat "$VENV/.onnx-light-genai"; cat "$ROOT/tests/python/genai/make_folders.py") |
  sha256sum | cut -c1-16)
OUT=$CACHE/$SET/$fstamp
if [ ! -f "$OUT/.complete" ]; then
  log "building model folders (${ARCHS[*]}; fp32 and int4) into $OUT"
  mkdir -p "$OUT"
  if ! "$VENV/bin/python" "$ROOT/tests/python/genai/make_folders.py" "$OUT" "${ARCHS[@]}" \
    >"$OUT/build.log" 2>&1; then
    tail -20 "$OUT/build.log" >&2
    log "ERROR: the model builder failed (log: $OUT/build.log)"
    exit 1
  fi
  touch "$OUT/.complete"
  # Folders made by older pins or an older make_folders.py are not used again.
  find "$CACHE/$SET" -mindepth 1 -maxdepth 1 -type d ! -name "$fstamp" -exec rm -rf {} +
fi
echo "$OUT"
