"""Model loading: onnx-light vs onnx.load, same run, same files.

Generates (a) a model whose 2 GiB of initializers live in an external data file and (b) a
500 MB single-file model, then loads each in fresh processes with onnx_light.onnx.load and
onnx.load, reporting wall time and peak RSS above the interpreter's baseline. "touch" rows
also read every weight byte after loading (np.sum over to_array), which is what a runtime
does; for onnx-light that maps the file's pages in.

    .venv/bin/python bench/model_load.py            # print the table
    .venv/bin/python bench/model_load.py --docs     # also rewrite docs/performance.md

The onnx package is the baseline here and is imported only in its own subprocesses.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from _common import cpu_name, write_section  # noqa: E402

PY = sys.executable
GIB = 1 << 30

GENERATE = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[1])
import onnx_light.onnx as ol
from onnx_light.onnx import helper, numpy_helper
kind, path, total = sys.argv[2], sys.argv[3], int(sys.argv[4])
n_tensors = {"external": 16, "single": 4, "huge": 8}[kind]
per = total // n_tensors // 4
inits = [numpy_helper.from_array(np.full(per, i, np.float32), f"w{i}") for i in range(n_tensors)]
nodes = [helper.make_node("Identity", [f"w{i}"], [f"y{i}"]) for i in range(n_tensors)]
outs = [helper.make_tensor_value_info(f"y{i}", 1, [per]) for i in range(n_tensors)]
graph = helper.make_graph(nodes, "big", [], outs, initializer=inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
ol.save(model, path, save_as_external_data=(kind == "external"), size_threshold=1024)
"""

MEASURE = r"""
import resource, sys, time, json
sys.path.insert(0, sys.argv[1])
import numpy as np
which, path, touch = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
if which == "onnx-light":
    import onnx_light.onnx as lib
    from onnx_light.onnx import numpy_helper
else:
    import onnx as lib
    from onnx import numpy_helper
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
model = lib.load(path)
t1 = time.perf_counter()
total = 0.0
if touch:
    for t in model.graph.initializer:
        total += float(np.sum(numpy_helper.to_array(t), dtype=np.float64))
t2 = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"load_s": t1 - t0, "touch_s": t2 - t1, "peak_mib": (peak - base) / 1024,
                  "checksum": total}))
"""


def run(code: str, *args: str) -> str:
    out = subprocess.run(
        [PY, "-c", code, str(REPO / "python"), *args], check=True, capture_output=True, text=True
    )
    return out.stdout


def measure(which: str, path: str, touch: bool, repeats: int) -> dict:
    runs = [json.loads(run(MEASURE, which, path, "1" if touch else "0")) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["load_s"] + r["touch_s"])
    best["peak_mib"] = max(r["peak_mib"] for r in runs)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the models (testing)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="onnx_light_bench_", dir=REPO / "build"))
    rows = []
    try:
        cases = [
            ("external", "a: 2 GiB external data", int(2 * GIB * args.scale)),
            ("single", "b: 500 MB single file", int(500e6 * args.scale)),
            ("huge", "c: 2.2 GB single file (over protobuf's 2 GiB)", int(2.2e9 * args.scale)),
        ]
        for kind, label, size in cases:
            path = str(work / f"{kind}.onnx")
            run(GENERATE, kind, path, str(size))
            files = sum(p.stat().st_size for p in work.iterdir() if p.name.startswith(kind))
            run(MEASURE, "onnx-light", path, "0")  # warm the page cache
            for touch in (False, True):
                light = measure("onnx-light", path, touch, args.repeats)
                try:
                    ref = measure("onnx", path, touch, 1 if kind == "huge" else args.repeats)
                except subprocess.CalledProcessError:
                    ref = None  # onnx.load cannot read a single file over 2 GiB
                if ref is not None and touch:
                    assert abs(light["checksum"] - ref["checksum"]) < 1e-6 * max(
                        1.0, abs(ref["checksum"])
                    )
                rows.append(
                    (label, "load + read all weights" if touch else "load", files / 1e6, light, ref)
                )
            for p in list(work.iterdir()):
                p.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        "| model | what | file MB | onnx-light s | onnx.load s | speed-up | onnx peak MiB | onnx-light peak MiB | onnx-light peak / file |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, what, mb, light, ref in rows:
        tl = light["load_s"] + light["touch_s"]
        if ref is None:
            theirs = "fails | - | fails"
        else:
            tr = ref["load_s"] + ref["touch_s"]
            theirs = f"{tr:.3f} | {tr / tl:.0f}x | {ref['peak_mib']:.0f}"
        lines.append(
            f"| {label} | {what} | {mb:.0f} | {tl:.4f} | {theirs} | {light['peak_mib']:.1f} | "
            f"{light['peak_mib'] * 1048576 / (mb * 1e6):.3f} |"
        )
    table = "\n".join(lines)
    print(table)
    if args.docs:
        write_docs(table)


def write_docs(table: str) -> None:
    write_section(
        "model_load",
        "## Model loading (`bench/model_load.py`)\n\n"
        f"Measured on {cpu_name()}, {os.cpu_count()} cores, files in the page cache, best of 3 "
        "fresh processes each; peak RSS is above the interpreter's own after imports. "
        "Regenerate with `.venv/bin/python bench/model_load.py --docs`.\n\n" + table,
    )


if __name__ == "__main__":
    main()
