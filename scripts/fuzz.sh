#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14, ASan and UBSan in build-fuzz/ and runs each
# for $1 seconds (default 60):
#   model_reader_fuzzer  bytes -> the ONNX reader (and back: serialize -> parse unchanged)
#   session_fuzzer       bytes -> model -> RuntimeSession -> one run with synthesized feeds
# $2 (optional) runs only the fuzzer of that name. Corpora are seeded from the onnx wheel's
# backend test data and kept in build-fuzz/ (ignored), so a long campaign continues where
# the last one stopped. Prints each fuzzer's executions; exits non-zero on any crash, leak,
# timeout or failed check (the input is saved as build-fuzz/<fuzzer>-crash-* and friends).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_TO_RUN=${1:-60}
ONLY=${2:-}
BUILD=$ROOT/build-fuzz
command -v clang++-14 >/dev/null || { echo "fuzz: clang++-14 missing (run scripts/setup.sh)"; exit 1; }
export CCACHE_BASEDIR=$ROOT
CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DONNX_LIGHT_FUZZ=ON -DONNX_LIGHT_SANITIZE=address,undefined -DONNX_LIGHT_BUILD_TESTS=OFF \
  -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF -DONNX_LIGHT_WERROR=ON >/dev/null
fuzzers=(model_reader_fuzzer session_fuzzer)
[ -n "$ONLY" ] && fuzzers=("$ONLY")
if ! cmake --build "$BUILD" -j 2 --target "${fuzzers[@]}" >"$BUILD/build.log" 2>&1; then
  grep -E "error|FAILED" "$BUILD/build.log" | head -n 20
  echo "fuzz: the build failed (whole log: $BUILD/build.log)"
  exit 1
fi
data=$("$ROOT/.venv/bin/python" -c 'import onnx,os;print(os.path.join(os.path.dirname(onnx.__file__),"backend/test/data"))')
seed() {  # corpus dir, files...
  local dir=$1 i=0
  shift
  [ -d "$dir" ] && return
  mkdir -p "$dir"
  for f in "$@"; do
    [ "$(stat -c %s "$f")" -lt 16384 ] && cp "$f" "$dir/seed_$i"
    i=$((i + 1))
  done
}
status=0
for fuzzer in "${fuzzers[@]}"; do
  corpus=$BUILD/corpus_$fuzzer
  case $fuzzer in
    model_reader_fuzzer)  # every 7th model and input tensor
      [ -d "$BUILD/corpus" ] && [ ! -d "$corpus" ] && mv "$BUILD/corpus" "$corpus"
      mapfile -t files < <(ls "$data"/node/test_*/model.onnx "$data"/node/test_*/test_data_set_0/input_0.pb | awk 'NR % 7 == 1')
      seed "$corpus" "${files[@]}" ;;
    session_fuzzer)  # every node test model
      seed "$corpus" "$data"/node/test_*/model.onnx ;;
  esac
  echo "fuzz: $fuzzer, $(ls "$corpus" | wc -l) corpus files, running ${SECONDS_TO_RUN}s"
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$BUILD/$fuzzer" "$corpus" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/$fuzzer-" >"$BUILD/$fuzzer.log" 2>&1
  rc=$?
  set -e
  grep -E "stat::number_of_executed_units|SUMMARY|ERROR|Test unit written" "$BUILD/$fuzzer.log" || true
  if [ $rc -ne 0 ]; then
    tail -n 40 "$BUILD/$fuzzer.log"
    status=1
  fi
done
exit $status
