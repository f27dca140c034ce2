#!/usr/bin/env bash
# README command 1: set everything up, build the onnx-light tool and run its main job:
# the bundled default model (models/default.onnx) on random inputs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh" --target onnx-light --target ort_custom_ops --target host_example
echo "== onnx-light run models/default.onnx --random --dim N=3 --repeat 1000"
"$ROOT/build/onnx-light" run "$ROOT/models/default.onnx" --random --dim N=3 --repeat 1000
echo "== an ONNX Runtime custom-op plugin through onnx-light's host (no ORT involved)"
"$ROOT/build/examples/host_example" "$ROOT/build/lib/libort_custom_ops.so" \
  "$ROOT/models/ort_custom_ops_leaky_relu.onnx"
