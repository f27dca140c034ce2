#!/usr/bin/env bash
# Runs the test suites under the sanitizers (ctest label `sanitize`, docs/robustness.md):
#   asan  build-asan/ (GCC, ASan+UBSan, RelWithDebInfo): every C++ suite, the Python suite
#         and the bridge's Python suite, with leak checking in the C++ suites
#   tsan  build-tsan/ (clang-14, ThreadSanitizer): the suites that run threads (concurrent
#         runs on one session, run cancellation from other threads, the thread pool, the
#         parallel kernels, the ORT plugin host's HostThreads tests)
# $1: asan, tsan or all (default). Builds once (ccache), then runs `ctest -L sanitize`.
# Takes long on two cores (the ASan build about 25 minutes from nothing), so the test
# command does not run it; run it before changing what the fuzzers and these suites cover.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WHICH=${1:-all}
export CCACHE_BASEDIR=$ROOT
status=0

run_suite() {  # name build-dir
  echo "== sanitize: $1 (ctest -L sanitize in $2)"
  if ! ctest --test-dir "$2" -L sanitize --output-on-failure -j 2 --timeout 3600; then
    status=1
  fi
}

if [ "$WHICH" = asan ] || [ "$WHICH" = all ]; then
  BUILD_DIR=$ROOT/build-asan CMAKE_ARGS="-DONNX_LIGHT_SANITIZE=address,undefined \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONNX_LIGHT_BUILD_TESTS=ON -DONNX_LIGHT_WERROR=OFF" "$ROOT/scripts/build.sh"
  run_suite "ASan+UBSan" "$ROOT/build-asan"
fi
if [ "$WHICH" = tsan ] || [ "$WHICH" = all ]; then
  command -v clang++-14 >/dev/null || { echo "sanitize: clang++-14 missing (run scripts/setup.sh)"; exit 1; }
  CC=clang-14 CXX=clang++-14 BUILD_DIR=$ROOT/build-tsan CMAKE_ARGS="-DONNX_LIGHT_SANITIZE=thread \
    -DONNX_LIGHT_BUILD_TESTS=ON -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_ORT_TEST_PYTHON=OFF -DONNX_LIGHT_WERROR=OFF" \
    "$ROOT/scripts/build.sh" --target onnx_light_runtime_test onnx_light_kernels_test \
    bridge_ops_ort_called_by_light_test
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 run_suite "ThreadSanitizer" "$ROOT/build-tsan"
fi
exit $status
