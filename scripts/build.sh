#!/usr/bin/env bash
# Configures (once) and builds onnx-light in $BUILD_DIR (default: build/) with the project
# venv's Python, two parallel jobs and warnings as errors. Extra arguments are passed to
# `cmake --build` (e.g. `--target onnx-light`). Run scripts/setup.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-2}
# ccache hits across clones in other folders (CI builds a fresh clone elsewhere).
export CCACHE_BASEDIR=$ROOT
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DONNX_LIGHT_WERROR=ON \
  -DONNX_LIGHT_ORT_TEST_PYTHON=ON \
  -DPython_EXECUTABLE="$ROOT/.venv/bin/python" \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" "$@"
