#!/usr/bin/env bash
# Builds the self-contained wheel (scripts/build_wheel.sh), installs it into a fresh venv
# outside the checkout -- with numpy, ml_dtypes and onnxruntime at the pinned versions, and
# nothing of the checkout on the path -- and runs the smoke suite there (tests/wheel/smoke.py):
# load and save a model, a real model against stored ORT outputs, CustomOpSession with the
# example plugin, onnx-light's ORT plugin under ONNX Runtime, `python -m onnx_light run`.
# Run by scripts/test.sh; needs scripts/build.sh first (the example plugin comes from build/).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=$ROOT/.venv
EXAMPLE_PLUGIN=$ROOT/build/lib/libort_custom_ops.so
[ -f "$EXAMPLE_PLUGIN" ] || { echo "test_wheel: $EXAMPLE_PLUGIN missing: run scripts/build.sh" >&2; exit 1; }
wheel=$("$ROOT/scripts/build_wheel.sh")
echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/onnx-light-wheel.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
base_python=$("$VENV/bin/python" -c 'import sys; print(sys._base_executable)')
"$base_python" -m venv "$WORK/venv"
pins=$(grep -hE '^(numpy|ml_dtypes|onnxruntime|flatbuffers|protobuf|packaging)==' \
  "$ROOT/requirements/dev.txt" "$ROOT/requirements/oracles.txt")
# shellcheck disable=SC2086
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" $pins
"$VENV/bin/python" "$ROOT/tests/wheel/make_references.py" "$WORK/data"
cp "$ROOT/tests/wheel/smoke.py" "$WORK/"
(cd "$WORK" && env -u PYTHONPATH -u ONNX_LIGHT_BUILD_DIR "$WORK/venv/bin/python" smoke.py "$WORK/data" "$EXAMPLE_PLUGIN")
