#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14, ASan and UBSan in build-fuzz/ and runs each
# for $1 seconds (default 60):
#   model_reader_fuzzer  bytes -> the ONNX reader (and back: serialize -> parse unchanged)
#   session_fuzzer       bytes -> model -> RuntimeSession -> one run with synthesized feeds
#   node_fuzzer          structure-aware: one node of a registry op, attributes, types,
#                        shapes and values from the bytes -> session -> run
#   c_api_fuzzer         16 steering bytes + a model -> the C ABI, feeds bent as a careless
#                        caller bends them
#   plugin_host_fuzzer   a model built from the bytes -> the plugin host's C ABI with the
#                        test plugin -> runs of any type, count and shape
#   extensions_host_fuzzer  a graph of one or two onnxruntime-extensions ops (strings, V1
#                        tokenizers, math, image, audio), standard ops around them -> a
#                        session with the real library in the extensions profile -> runs
#                        (the library and libpython come from the test venv)
# $2 (optional) runs only the fuzzer of that name. FUZZ_RUNS=N stops each after N
# executions instead (the time limit still applies); FUZZ_JOBS=N runs N processes per
# fuzzer (libFuzzer -fork, ignoring nothing: the first finding stops it); FUZZ_FLAGS adds
# libFuzzer flags (the long campaigns use -entropic=0: twice the executions per second);
# FUZZ_KEEP_GOING=1 restarts a fuzzer after a finding (saved, counted, reported at the
# end) until its runs or time are spent: a long campaign in one command; FUZZ_CHUNK=N (with
# FUZZ_RUNS) ends each process after N executions and starts the next from the grown corpus
# (the plugin host fuzzer wants it: under ASan and libFuzzer each unload of the plugin walks
# glibc's exit-handler list, which grows with every load, so one long process slows to a
# tenth); FUZZ_UNDER=N runs on inputs of up to N bytes only: from a side corpus of the
# corpus's units under N bytes, with -max_len=N, the new units copied back at the end (the
# model corpora hold real-model graphs of up to 256 KiB; the rest runs 3-4 times as many
# executions a second without them); FUZZ_NO_BUILD=1 skips the build (for campaigns
# running side by side).
# Corpora are seeded from the onnx wheel's backend test models and from the real models
# (tests/fuzz/make_seeds.py) and kept in build-fuzz/ (ignored), so a long campaign
# continues where the last one stopped. Prints each fuzzer's executions; exits non-zero on
# any crash, leak, timeout or failed check (the input is saved as
# build-fuzz/<fuzzer>-crash-* and friends).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_TO_RUN=${1:-60}
ONLY=${2:-}
BUILD=$ROOT/build-fuzz
command -v clang++-14 >/dev/null || { echo "fuzz: clang++-14 missing (run scripts/setup.sh)"; exit 1; }
export CCACHE_BASEDIR=$ROOT
[ -n "${FUZZ_NO_BUILD:-}" ] || CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DONNX_LIGHT_FUZZ=ON -DONNX_LIGHT_SANITIZE=address,undefined -DONNX_LIGHT_BUILD_TESTS=OFF \
  -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF -DONNX_LIGHT_WERROR=ON >/dev/null
fuzzers=(model_reader_fuzzer session_fuzzer node_fuzzer c_api_fuzzer plugin_host_fuzzer extensions_host_fuzzer)
[ -n "$ONLY" ] && fuzzers=("$ONLY")
if [ -z "${FUZZ_NO_BUILD:-}" ] && ! cmake --build "$BUILD" -j 2 --target "${fuzzers[@]}" >"$BUILD/build.log" 2>&1; then
  grep -E "error|FAILED" "$BUILD/build.log" | head -n 20
  echo "fuzz: the build failed (whole log: $BUILD/build.log)"
  exit 1
fi
data=$("$ROOT/.venv/bin/python" -c 'import onnx,os;print(os.path.join(os.path.dirname(onnx.__file__),"backend/test/data"))')
python=$ROOT/.venv/bin/python
# The extensions fuzzer's library (found without importing the package) and the libpython
# it references.
ONNX_LIGHT_EXTENSIONS_LIBRARY=$("$python" -c 'import glob,importlib.util,os;d=importlib.util.find_spec("onnxruntime_extensions").submodule_search_locations[0];print(glob.glob(os.path.join(d,"_extensions_pydll*.so"))[0])')
ONNX_LIGHT_LIBPYTHON=$("$python" -c 'import os,sysconfig;print(os.path.join(sysconfig.get_config_var("LIBDIR"),sysconfig.get_config_var("LDLIBRARY")))')
[ -f "$ONNX_LIGHT_LIBPYTHON" ] || { echo "fuzz: $ONNX_LIGHT_LIBPYTHON missing (the extensions fuzzer needs the shared libpython of the venv's Python; Debian: apt-get install libpython3-dev)"; exit 1; }
export ONNX_LIGHT_EXTENSIONS_LIBRARY ONNX_LIGHT_LIBPYTHON
seed() {  # corpus dir, files... (each under 16 KiB; $PREFIX zero bytes before each)
  local dir=$1 i=0
  shift
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    for f in "$@"; do
      if [ "$(stat -c %s "$f")" -lt 16384 ]; then
        { head -c "${PREFIX:-0}" /dev/zero; cat "$f"; } >"$dir/seed_$i"
      fi
      i=$((i + 1))
    done
  fi
  # The real models' graphs, once (also into a corpus made before they were seeds).
  if [ -n "${REAL:-}" ] && ! compgen -G "$dir/real_*" >/dev/null; then
    "$python" "$ROOT/tests/fuzz/make_seeds.py" "$dir" --prefix-bytes "${PREFIX:-0}" >/dev/null
  fi
}
status=0
for fuzzer in "${fuzzers[@]}"; do
  corpus=$BUILD/corpus_$fuzzer
  max_len=4096
  case $fuzzer in
    model_reader_fuzzer)  # every 7th model and input tensor
      max_len=65536
      mapfile -t files < <(ls "$data"/node/test_*/model.onnx "$data"/node/test_*/test_data_set_0/input_0.pb | awk 'NR % 7 == 1')
      seed "$corpus" "${files[@]}" ;;
    session_fuzzer)  # every node test model and the real models' graphs
      max_len=262144
      REAL=1 seed "$corpus" "$data"/node/test_*/model.onnx ;;
    c_api_fuzzer)  # the same, after 16 steering bytes
      max_len=262144
      PREFIX=16 REAL=1 seed "$corpus" "$data"/node/test_*/model.onnx ;;
    *)  # structure-aware: they build their models from any bytes
      mkdir -p "$corpus" ;;
  esac
  main_corpus=$corpus
  if [ -n "${FUZZ_UNDER:-}" ]; then
    corpus=$main_corpus.under$FUZZ_UNDER
    max_len=$FUZZ_UNDER
    mkdir -p "$corpus"
    find "$main_corpus" -maxdepth 1 -type f -size -"$FUZZ_UNDER"c -exec cp -n -t "$corpus" {} +
  fi
  echo "fuzz: $fuzzer, $(ls "$corpus" | wc -l) corpus files (up to $max_len bytes), running ${SECONDS_TO_RUN}s${FUZZ_RUNS:+ or $FUZZ_RUNS runs}"
  extra=()
  [ -n "${FUZZ_JOBS:-}" ] && extra+=("-fork=$FUZZ_JOBS")
  # shellcheck disable=SC2206
  [ -n "${FUZZ_FLAGS:-}" ] && extra+=($FUZZ_FLAGS)
  # One libFuzzer process, or (FUZZ_KEEP_GOING) one after another from the grown corpus
  # until the runs or the time are spent, each finding saved and counted.
  total=0 found=0 start=$SECONDS part=0
  while :; do
    left=$((SECONDS_TO_RUN - (SECONDS - start)))
    [ $left -le 0 ] && break
    runs=()
    if [ -n "${FUZZ_RUNS:-}" ]; then
      [ $total -ge "$FUZZ_RUNS" ] && break
      chunk=$((FUZZ_RUNS - total))
      [ -n "${FUZZ_CHUNK:-}" ] && [ "$FUZZ_CHUNK" -lt $chunk ] && chunk=$FUZZ_CHUNK
      runs=("-runs=$chunk")
    fi
    log=$BUILD/$fuzzer.log
    [ $part -gt 0 ] && log=$BUILD/$fuzzer.$part.log
    set +e
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$BUILD/$fuzzer" "$corpus" -max_total_time="$left" -max_len="$max_len" -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -print_funcs=0 -artifact_prefix="$BUILD/$fuzzer-" \
      "${runs[@]}" "${extra[@]}" >"$log" 2>&1
    rc=$?
    set -e
    n=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" | tail -n 1 || true)
    # (-fork, FUZZ_JOBS, prints no final stats: its last progress line's count)
    [ -n "$n" ] || n=$(grep -oE "^#[0-9]+" "$log" | tr -d '#' | tail -n 1 || true)
    total=$((total + ${n:-0}))
    part=$((part + 1))
    if [ $rc -eq 0 ]; then
      # A chunk done (FUZZ_CHUNK): the next process continues from the grown corpus.
      [ -n "${FUZZ_CHUNK:-}" ] && [ -n "${FUZZ_RUNS:-}" ] && [ $total -lt "$FUZZ_RUNS" ] && [ "${n:-0}" -gt 0 ] && continue
      break
    fi
    found=$((found + 1))
    status=1
    grep -E "SUMMARY|Test unit written" "$log" || tail -n 40 "$log"
    [ -n "${FUZZ_KEEP_GOING:-}" ] || break
  done
  [ "$corpus" != "$main_corpus" ] && cp -n -t "$main_corpus" "$corpus"/*
  echo "fuzz: $fuzzer: $total executions, $found findings (log: $BUILD/$fuzzer*.log)"
done
exit $status
