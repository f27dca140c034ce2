"""``python -m onnx_light.ort_compat SCRIPT [ARGS]`` (or ``-m MODULE [ARGS]``): runs a program
written for ONNX Runtime, unmodified, on onnx-light, as ``python -m coverage run`` runs one
under coverage: ``import onnxruntime`` in it gives onnx-light's drop-in
(:func:`onnx_light.ort_compat.install`). ``sys.argv`` and ``sys.path[0]`` are what the
program would see run directly; its exit status is this command's."""

from __future__ import annotations

import os
import runpy
import sys

USAGE = "usage: python -m onnx_light.ort_compat (SCRIPT | -m MODULE) [ARGS...]"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE + "\n\n" + (__doc__ or "").strip(), file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    from onnx_light.ort_compat import install

    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE + "\nerror: -m needs a module name", file=sys.stderr)
            return 2
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"{USAGE}\nerror: no such script: {script}", file=sys.stderr)
        return 2
    sys.argv = [script, *argv[1:]]
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python SCRIPT` sets it
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
