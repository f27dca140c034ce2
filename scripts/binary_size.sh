#!/usr/bin/env bash
# Measures what a user downloads, installs and links, and writes docs/binary_size.md:
#   1. the wheel (scripts/build_wheel.sh): its size, its size installed (unpacked), and each
#      shared object in it; ONNX Runtime's installed package beside it;
#   2. the libraries of the default build, stripped: libonnx_light.so (the runtime: its C ABI
#      and its C++ API), the Python module and the two bridges that link it, the onnx-light
#      tool (the runtime linked in statically);
#   3. the size profile and reduced builds (libonnx_light.so and the tool).
# Run scripts/setup.sh and scripts/build.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export CCACHE_BASEDIR=$ROOT
OUT=$ROOT/build-size
mkdir -p "$OUT"
printf '# zero ops: the runtime alone\n' >"$OUT/zero.config"
build/onnx-light reduced-config models/default.onnx -o "$OUT/default.config" >/dev/null

kb() { echo $(( ($(stat -c %s "$1") + 1023) / 1024 )); }
stripped_kb() {  # file
  strip -o "$OUT/stripped" "$1"
  kb "$OUT/stripped"
}

# 1. The wheel.
wheel=$(bash scripts/build_wheel.sh 2>/dev/null | tail -n 1)
rm -rf "$OUT/wheel" && mkdir -p "$OUT/wheel"
(cd "$OUT/wheel" && python3 -m zipfile -e "$wheel" .)
installed_kb=$(( $(du -sb "$OUT/wheel" | cut -f1) / 1024 ))
ort_dir=$(.venv/bin/python -c "import onnxruntime, os; print(os.path.dirname(onnxruntime.__file__))")
ort_ver=$(.venv/bin/python -c "import onnxruntime; print(onnxruntime.__version__)")
ort_kb=$(( $(du -sb "$ort_dir" | cut -f1) / 1024 ))
ort_lib=$(ls "$ort_dir"/capi/libonnxruntime.so* | head -n 1)

# 3. The size profile and reduced builds.
configure_and_build() {  # dir, extra cmake args...
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONNX_LIGHT_BUILD_TESTS=OFF \
    -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF "$@" >/dev/null
  cmake --build "$dir" -j 2 --target onnx-light onnx_light_shared >/dev/null
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

{
  echo "# Binary size"
  echo
  echo "Produced by \`scripts/binary_size.sh\` ($(date -u +%Y-%m-%d), GCC $(gcc -dumpversion), x86-64):"
  echo "what a user downloads and installs, then each library. KiB = 1024 bytes."
  echo
  echo "## The wheel"
  echo
  echo "| | onnx-light $(basename "$wheel" | cut -d- -f2) | onnxruntime $ort_ver |"
  echo "| --- | ---: | ---: |"
  echo "| wheel (download) | $(kb "$wheel") KiB | |"
  echo "| installed (unpacked) | $installed_kb KiB | $ort_kb KiB |"
  echo
  echo "Each shared object in the wheel, as it ships (auditwheel leaves them as the build"
  echo "stripped them):"
  echo
  echo "| file | KiB |"
  echo "| --- | ---: |"
  (cd "$OUT/wheel" && find . -name '*.so*' -type f | sort | while read -r f; do
    echo "| \`${f#./}\` | $(kb "$f") |"
  done)
  echo
  echo "The runtime is in the wheel once: \`onnx_light/libonnx_light.so\`, which the Python"
  echo "module (\`_core\`) and the plugin-host bridge link (RPATH \`\$ORIGIN\`,"
  echo "\`\$ORIGIN/../../onnx_light\`). Nothing is bundled but Highway's dispatch library, as"
  echo "\`onnx_light/libonnx_light_hwy.so\` (a copy the build renames, so that auditwheel patches"
  echo "no library: patchelf grew each one it renamed a dependency in, 0.33 MB in all): no BLAS,"
  echo "the matrix products are onnx-light's own"
  echo "([performance.md](performance.md)). The ORT plugin of onnx-light's kernels"
  echo "(\`bridge_ops_light_called_by_ort\`) carries only the SIMD kernels it exposes."
  echo
  echo "## The libraries of the default build"
  echo
  echo "Stripped (\`strip\`), \`-O3\`, every kernel:"
  echo
  echo "| library | KiB |"
  echo "| --- | ---: |"
  echo "| \`libonnx_light.so\` (the runtime: C ABI and C++ API) | $(stripped_kb build/lib/libonnx_light.so) |"
  echo "| \`_core\` (the Python module; links libonnx_light.so) | $(stripped_kb build/python/onnx_light/_core*.so) |"
  echo "| \`libonnx_light_ort_bridge_ops_ort_called_by_light.so\` (the plugin host; links libonnx_light.so) | $(stripped_kb build/lib/libonnx_light_ort_bridge_ops_ort_called_by_light.so) |"
  echo "| \`libonnx_light_ort_bridge_ops_light_called_by_ort.so\` (the ORT plugin) | $(stripped_kb build/lib/libonnx_light_ort_bridge_ops_light_called_by_ort.so) |"
  echo "| \`libonnxruntime.so.1\` (ORT's C API, 425 slots; links libonnx_light.so) | $(stripped_kb build/lib/libonnxruntime.so.1) |"
  echo "| \`onnx-light\` (the tool; the runtime linked in statically) | $(stripped_kb build/onnx-light) |"
  echo "| for comparison: ORT's \`$(basename "$ort_lib")\` | $(kb "$ort_lib") |"
  echo
  echo "\`libonnx_light.so\` exports the C ABI (\`OnnxLight*\`) and the C++ API of the runtime"
  echo "(\`onnx_light::\`, \`onnx_light_ort::\`) and nothing else; the kernels, the passes and"
  echo "the SIMD library are compiled with hidden visibility, in sections of their own, and the"
  echo "library is linked with \`--gc-sections\`. The kernels' C++ keeps \`-O3\`: compiled at"
  echo "\`-O2\` the library was 1.8 MB smaller and at \`-Os\` 2.5 MB, but the models of"
  echo "\`bench/models_vs_ort.py\` then ran 1.11x and 1.25x as long (geometric means, one"
  echo "thread, 2026-12-02); only kernels off every hot path compile for size (integer bit"
  echo "and logic operations, Mod, the string ops, ai.onnx.ml's encoders and mappers, sequences,"
  echo "control flow, NMS, Unique, losses), and so does the code that runs once per session"
  echo "(the graph passes, the graph, the planner, the model codec). Pow reads its exponent as one of three types"
  echo "(11 x 3 instantiations of its broadcast loop instead of 11 x 11: 0.6 MB less)."
  echo "Types that compute alike share one instantiation, at the same speed: signed Add, Sub,"
  echo "Mul and Equal run as the unsigned type of their width, Greater(Or)Equal as"
  echo "Less(OrEqual) with the operands swapped, integer Casts by width, and the broadcast"
  echo "paths of one kernel share their contiguous loops (0.7 MB less, 2026-12-02)."
  echo
  echo "Then (2026-12-03), 8,036 -> 6,661 KB stripped: the session-time code and the off-path"
  echo "kernels for size (-0.36 and -0.35 MB); gold's identical code folding (\`--icf=safe\`: the"
  echo "per-type instantiations that compile to the same machine code kept once, -0.2 MB);"
  echo "\`ThreadPool::ParallelFor\` taking a non-owning \`ParallelBody\` and kernel factories as"
  echo "plain function pointers instead of a \`std::function\` each (-0.46 MB). The Python module"
  echo "went 1,625 -> 798 KB: its ONNX message classes share one type-erased implementation of"
  echo "their methods and fields instead of nanobind instantiating each per class and field."
  echo
  echo "## Size profile and reduced builds"
  echo
  echo "| build | libonnx_light.so KiB | onnx-light KiB | kernels | config |"
  echo "| --- | ---: | ---: | --- | --- |"
  row "default build (-O3, all kernels)" build "none (all kernels)"
  row "size profile, all kernels" "$OUT/full" "none (all kernels)"
  row "size profile, reduced to the bundled model" "$OUT/default" "\`$(grep -v '^#' "$OUT/default.config" | paste -sd ' ')\`"
  row "size profile, zero ops" "$OUT/zero" "empty (comments only)"
  echo
  echo "Size profile: \`-DONNX_LIGHT_SIZE_OPTIMIZED=ON\` (\`-Os\`, \`-ffunction-sections\`"
  echo "\`-fdata-sections\`, \`--gc-sections\`, LTO); reduced builds add"
  echo "\`-DONNX_LIGHT_REDUCED_OPS_CONFIG=<config>\` (see [reduced_builds.md](reduced_builds.md))."
  echo "A reduced build keeps the table of excluded ops, to name them in its errors."
  echo
  echo "For comparison: ONNX Runtime's published minimal-build gate (zero-op Android arm64"
  echo "baseline) is about 1.3 MB."
} >docs/binary_size.md
cat docs/binary_size.md
