#!/usr/bin/env bash
# README command 1: set everything up, build the onnx-light tool and run its main job.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh" --target onnx-light
echo "== onnx-light dtypes"
"$ROOT/build/onnx-light" dtypes
