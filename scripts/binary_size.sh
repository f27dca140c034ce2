#!/usr/bin/env bash
# Measures stripped sizes of the runtime library (libonnx_light.so, the C ABI of
# include/onnx_light/c_api.h) and of the onnx-light tool for: the default build; the full
# kernel set with the size profile; a reduced build for the bundled model; a reduced build
# with zero ops. Writes docs/binary_size.md. Run scripts/setup.sh and scripts/build.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export CCACHE_BASEDIR=$ROOT
OUT=$ROOT/build-size
mkdir -p "$OUT"
printf '# zero ops: the runtime alone\n' >"$OUT/zero.config"
build/onnx-light reduced-config models/default.onnx -o "$OUT/default.config" >/dev/null

configure_and_build() {  # dir, extra cmake args...
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONNX_LIGHT_BUILD_TESTS=OFF \
    -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF "$@" >/dev/null
  cmake --build "$dir" -j 2 --target onnx-light onnx_light_shared >/dev/null
}
stripped_kb() {  # file
  strip -o "$OUT/stripped" "$1"
  echo $(( $(stat -c %s "$OUT/stripped") / 1024 ))
}

configure_and_build "$OUT/full" -DONNX_LIGHT_SIZE_OPTIMIZED=ON
configure_and_build "$OUT/default" -DONNX_LIGHT_SIZE_OPTIMIZED=ON \
  -DONNX_LIGHT_REDUCED_OPS_CONFIG="$OUT/default.config"
configure_and_build "$OUT/zero" -DONNX_LIGHT_SIZE_OPTIMIZED=ON \
  -DONNX_LIGHT_REDUCED_OPS_CONFIG="$OUT/zero.config"

row() {  # label, build dir, config
  local kernels
  kernels=$("$2/onnx-light" ops | tail -n 1)
  echo "| $1 | $(stripped_kb "$2/lib/libonnx_light.so") | $(stripped_kb "$2/onnx-light") | $kernels | $3 |"
}
ort_wheel=$(ls .venv/lib/python3.11/site-packages/onnxruntime/capi/libonnxruntime.so* | head -n 1)
ort_kb=$(( $(stat -c %s "$ort_wheel") / 1024 ))

{
  echo "# Binary size"
  echo
  echo "Stripped sizes in KiB on x86-64 (\`strip\`, GCC $(gcc -dumpversion), $(date -u +%Y-%m-%d)),"
  echo "produced by \`scripts/binary_size.sh\`. \`libonnx_light.so\` is the runtime with its C ABI"
  echo "(\`include/onnx_light/c_api.h\`: load a model, run it), which is all it exports, so the"
  echo "linker keeps only what that needs; the \`onnx-light\` tool links the same runtime"
  echo "statically plus its own commands. Both depend on libstdc++, Debian's \`libhwy.so.1\`"
  echo "(Highway's dispatch tables) and \`libopenblas.so.0\` (the matrix products), all shared"
  echo "and not counted."
  echo
  echo "| build | libonnx_light.so KiB | onnx-light KiB | kernels | config |"
  echo "| --- | ---: | ---: | --- | --- |"
  row "default build (-O3, all kernels)" build "none (all kernels)"
  row "size profile, all kernels" "$OUT/full" "none (all kernels)"
  row "size profile, reduced to the bundled model" "$OUT/default" "\`$(grep -v '^#' "$OUT/default.config" | paste -sd ' ')\`"
  row "size profile, zero ops" "$OUT/zero" "empty (comments only)"
  echo
  echo "Size profile: \`-DONNX_LIGHT_SIZE_OPTIMIZED=ON\` (\`-Os\`, \`-ffunction-sections\`"
  echo "\`-fdata-sections\`, \`--gc-sections\`, LTO, hidden visibility); reduced builds add"
  echo "\`-DONNX_LIGHT_REDUCED_OPS_CONFIG=<config>\` (see [reduced_builds.md](reduced_builds.md))."
  echo
  echo "For comparison: ONNX Runtime's published minimal-build gate (zero-op Android arm64"
  echo "baseline) is about 1.3 MB; the \`onnxruntime\` wheel's \`$(basename "$ort_wheel")\` is"
  echo "$ort_kb KiB (measured here)."
} >docs/binary_size.md
cat docs/binary_size.md
