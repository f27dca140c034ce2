#!/usr/bin/env bash
# README command 2: set everything up, build with warnings as errors, check formatting and
# run every test suite (ctest, then pytest, then the wheel's smoke suite in a fresh venv, then
# real ORT applications from PyPI run unmodified on the wheel and compared with ORT). Exits
# non-zero if anything failed; the output ends with the runners' summary lines.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh" || exit 1
"$ROOT/scripts/build.sh" || exit 1

failed=0
echo "== format"
"$ROOT/scripts/check_format.sh" || failed=1
echo "== fuzz (30 s per fuzzer, six fuzzers, libFuzzer + ASan/UBSan)"
"$ROOT/scripts/fuzz.sh" 30 || failed=1
echo "== ctest"
ctest --test-dir "$ROOT/build" --output-on-failure -j 2 || failed=1
echo "== pytest"
# The bridge suites run under ctest, each in its own process (see docs/development.md).
"$ROOT/.venv/bin/python" -m pytest "$ROOT/tests/python" -q \
  --ignore="$ROOT/tests/python/bridge_ops_ort_called_by_light" || failed=1
echo "== wheel (self-contained, installed into a fresh venv outside the checkout)"
"$ROOT/scripts/test_wheel.sh" || failed=1
echo "== apps (real ONNX Runtime applications from PyPI, unmodified, on the wheel vs on ORT)"
"$ROOT/scripts/test_apps.sh" || failed=1
exit $failed
