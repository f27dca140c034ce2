"""``python -m onnx_light``: the onnx-light command-line tool (``onnx-light help``).

The tool's C++ code is compiled into the native extension, so the installed package needs
no separate executable; the ``onnx-light`` console script of the wheel calls :func:`main`.
"""

from __future__ import annotations

import sys

from . import _core


def main(argv: list[str] | None = None) -> int:
    """Runs the tool on ``argv`` (default ``sys.argv[1:]``) and returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    # The tool writes through C stdio; what Python buffered so far goes first.
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.cli_main(["onnx-light", *args])


if __name__ == "__main__":
    sys.exit(main())
