"""Writes docs/ort_c_api.md's slot table from the built libonnxruntime.so.1: every slot of
OrtApi (API 29) with its index and whether onnx-light implements it.

    .venv/bin/python tools/ort_c_api_docs.py           # rewrite the section
    .venv/bin/python tools/ort_c_api_docs.py --check   # exit 1 when the page is stale

tests/python/ort_c_api/test_docs_table.py runs the check."""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
PAGE = REPO / "docs" / "ort_c_api.md"
BEGIN, END = "<!-- BEGIN slot table -->", "<!-- END slot table -->"


def table() -> str:
    lib = ctypes.CDLL(str(BUILD / "lib" / "libonnxruntime.so.1"))
    lib.OnnxLightOrtApiSlotName.restype = ctypes.c_char_p
    n = lib.OnnxLightOrtApiSlotCount()
    rows = [
        (i, lib.OnnxLightOrtApiSlotName(i).decode(), lib.OnnxLightOrtApiSlotIsStub(i))
        for i in range(n)
    ]
    real = sum(1 for _, _, stub in rows if stub == 0)
    lines = [
        f"{n} slots: {real} implemented, {n - real} answered as not supported (a status naming "
        "the function, nothing for a void slot, null from a getter).",
        "",
        "| # | slot | onnx-light |",
        "| ---: | --- | --- |",
    ]
    lines += [f"| {i} | `{name}` | {'stub' if stub else '**yes**'} |" for i, name, stub in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = PAGE.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = text[:start] + "\n" + table() + "\n" + text[end:]
    if args.check:
        if new != text:
            print(f"{PAGE} is stale: run .venv/bin/python tools/ort_c_api_docs.py", file=sys.stderr)
            sys.exit(1)
        return
    PAGE.write_text(new)


if __name__ == "__main__":
    main()
