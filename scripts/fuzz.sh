#!/usr/bin/env bash
# Builds the ONNX reader's libFuzzer target with clang-14, ASan and UBSan in build-fuzz/
# and runs it for $1 seconds (default 60) on a corpus seeded with models and tensors from
# the onnx wheel's backend test data. Exits non-zero on any crash, leak or failed check.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_TO_RUN=${1:-60}
BUILD=$ROOT/build-fuzz
command -v clang++-14 >/dev/null || { echo "fuzz: clang++-14 missing (run scripts/setup.sh)"; exit 1; }
export CCACHE_BASEDIR=$ROOT
CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DONNX_LIGHT_FUZZ=ON -DONNX_LIGHT_SANITIZE=address,undefined -DONNX_LIGHT_BUILD_TESTS=OFF \
  -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_WERROR=ON >/dev/null
cmake --build "$BUILD" -j 2 --target model_reader_fuzzer
corpus=$BUILD/corpus
if [ ! -d "$corpus" ]; then
  mkdir -p "$corpus"
  data=$("$ROOT/.venv/bin/python" -c 'import onnx,os;print(os.path.join(os.path.dirname(onnx.__file__),"backend/test/data"))')
  i=0
  for f in "$data"/node/test_*/model.onnx "$data"/node/test_*/test_data_set_0/input_0.pb; do
    [ $((i % 7)) -eq 0 ] && [ "$(stat -c %s "$f")" -lt 16384 ] && cp "$f" "$corpus/seed_$i"
    i=$((i + 1))
  done
fi
echo "fuzz: $(ls "$corpus" | wc -l) corpus files, running ${SECONDS_TO_RUN}s"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$BUILD/model_reader_fuzzer" "$corpus" \
  -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$BUILD/" 2>&1 | tail -n 25
exit "${PIPESTATUS[0]}"
