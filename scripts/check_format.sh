#!/usr/bin/env bash
# Checks formatting of every tracked source file: clang-format (C/C++), black and isort
# (Python), and that no function of the runtime or the kernels is over 150 lines (lizard).
# Exits non-zero and names the files (or functions) when something is off.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
status=0
mapfile -t cc < <(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp' '*.c')
if ((${#cc[@]})); then
  clang-format --dry-run -Werror "${cc[@]}" || { echo "clang-format: run clang-format -i on the files above"; status=1; }
fi
mapfile -t py < <(git ls-files '*.py')
if ((${#py[@]})); then
  .venv/bin/black --check -q "${py[@]}" || { echo "black: run .venv/bin/black on the files above"; status=1; }
  .venv/bin/isort --check-only -q "${py[@]}" || { echo "isort: run .venv/bin/isort on the files above"; status=1; }
fi
# Function length: lizard's "length" (every line from the signature to the closing brace)
# over 150 in src/onnx_light/runtime and src/onnx_light/kernels fails; only length is
# checked (-C and -a set out of reach).
long=$(.venv/bin/lizard -l cpp -L 150 -C 100000 -a 1000 -w src/onnx_light/runtime src/onnx_light/kernels || true)
if [ -n "$long" ]; then
  echo "$long"
  echo "function length: split the functions above (150 lines at most)"
  status=1
fi
[ $status -eq 0 ] && echo "format: ${#cc[@]} C++ and ${#py[@]} Python files clean; no function over 150 lines"
exit $status
