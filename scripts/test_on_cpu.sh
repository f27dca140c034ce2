#!/usr/bin/env bash
# Runs the C++ test executables and the pytest suite on an emulated CPU model, to check
# that the tests pass on CPUs other than this one (e.g. an AVX2-only machine when this one
# has AVX-512):
#   scripts/test_on_cpu.sh Haswell      # AVX2, FMA, F16C; no AVX-512, no VNNI
#   scripts/test_on_cpu.sh Nehalem      # SSE4.2; no AVX, no F16C
# Every process started by Python (the onnx-light tool in test_cli.py, the bridge's own
# pytest process) runs natively; the rest of the suite, ONNX Runtime included, sees the
# emulated CPU (qemu-user reports its CPUID). Needs qemu-user (installed with apt-get if
# missing) and a build (scripts/build.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CPU=${1:?usage: scripts/test_on_cpu.sh CPU_MODEL (see qemu-x86_64 -cpu help)}
BUILD=${BUILD_DIR:-$ROOT/build}
if ! command -v qemu-x86_64 >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends qemu-user || exit 1
fi
run() { qemu-x86_64 -cpu "$CPU" "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2); }
failed=0
for t in onnx_light_core_test onnx_light_onnx_test onnx_light_kernels_test \
  onnx_light_runtime_test onnx_light_c_api_test bridge_ops_ort_called_by_light_test; do
  exe=$(find "$BUILD/tests/cpp" -name "$t" -type f | head -1)
  [ -n "$exe" ] || { echo "missing $t: build with scripts/build.sh"; exit 1; }
  echo "== $t on $CPU"
  log=$(cd "$(dirname "$exe")" && run "$exe" --gtest_brief=1) || failed=1
  grep -E "SIMD targets tested|^\[  (PASSED|FAILED) " <<<"$log"
done
echo "== pytest on $CPU"
cd "$ROOT"
run .venv/bin/python -m pytest -q -p no:cacheprovider tests/python \
  --ignore=tests/python/bridge_ops_ort_called_by_light | tail -3 || failed=1
exit $failed
