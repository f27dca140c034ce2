#!/usr/bin/env bash
# README command 1: set everything up, build the onnx-light tool and run its main job:
# the bundled default model (models/default.onnx) on random inputs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh" --target onnx-light
echo "== onnx-light run models/default.onnx --random --dim N=3 --repeat 1000"
"$ROOT/build/onnx-light" run "$ROOT/models/default.onnx" --random --dim N=3 --repeat 1000
