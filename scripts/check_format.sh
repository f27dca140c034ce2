#!/usr/bin/env bash
# Checks formatting of every tracked source file: clang-format (C/C++), black and isort
# (Python). Exits non-zero and names the files when something is off.
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
[ $status -eq 0 ] && echo "format: ${#cc[@]} C++ and ${#py[@]} Python files clean"
exit $status
