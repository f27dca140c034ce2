"""``python -m onnx_light``: the onnx-light command-line tool (``onnx-light help``).

The tool's C++ code is compiled into the native extension, so the installed package needs
no separate executable; the ``onnx-light`` console script of the wheel calls :func:`main`.
"""

from __future__ import annotations

import signal
import sys

from . import _core


def main(argv: list[str] | None = None) -> int:
    """Runs the tool on ``argv`` (default ``sys.argv[1:]``) and returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    # The tool writes through C stdio; what Python buffered so far goes first.
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.cli_main(["onnx-light", *args])


def run() -> int:
    """The program: ``python -m onnx_light`` and the ``onnx-light`` script. Ctrl-C stops it
    at once, as it stops the native tool (Python's own handler would wait for the C++ run to
    return before it saw the signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return main()


if __name__ == "__main__":
    sys.exit(run())
