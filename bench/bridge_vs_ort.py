"""The "ORT called by onnx-light" host side by side with ONNX Runtime running the same
plugin (examples/custom_ops/ort_custom_ops.cc, float32 LeakyRelu), one thread each, on 1
and 1 Mi elements.

Rows: ORT's InferenceSession.run; the host's C ABI LightOrtRunTyped called from Python
through ctypes (no input copy); onnx_light_ort.CustomOpSession.run (copies its input by
design); and LightOrtRunTyped from C++ (bench/bridge_host_bench.cc, Google Benchmark).

    .venv/bin/python bench/bridge_vs_ort.py [--docs]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import onnxruntime as ort  # noqa: E402
from _common import timeit, write_section  # noqa: E402

from onnx_light.onnx import TensorProto, helper  # noqa: E402
from onnx_light_ort import CustomOpSession  # noqa: E402
from onnx_light_ort._session import _library, _Tensor  # noqa: E402

BUILD = REPO / "build"
PLUGIN = BUILD / "lib" / "libort_custom_ops.so"


def model_bytes() -> bytes:
    node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="ort_custom_ops", alpha=0.1)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N"])],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("ort_custom_ops", 1)])
    m.ir_version = 9
    return m.SerializeToString()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    data = model_bytes()
    so = ort.SessionOptions()
    so.register_custom_ops_library(str(PLUGIN))
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    ref = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    host = CustomOpSession(PLUGIN, data)
    lib = _library()
    rows = []
    for n in (1, 1 << 20):
        x = np.linspace(-1, 1, n, dtype=np.float32)
        shape = (ctypes.c_int64 * 1)(n)
        out = _Tensor()

        def raw():
            lib.LightOrtRunTyped(host._handle, x.ctypes.data, 1, n, shape, 1, ctypes.byref(out))
            lib.LightOrtTensorRelease(ctypes.byref(out))

        np.testing.assert_array_equal(host.run(x), ref.run(None, {"x": x})[0])
        rows.append(
            {
                "n": n,
                "ort": timeit(lambda: ref.run(None, {"x": x})),
                "ctypes": timeit(raw),
                "session": timeit(lambda: host.run(x)),
            }
        )
    host.close()
    model_path = BUILD / "bench_bridge.onnx"
    model_path.write_bytes(data)
    subprocess.run(
        ["cmake", "--build", str(BUILD), "--target", "bridge_host_bench"],
        check=True,
        capture_output=True,
    )
    gb = subprocess.run(
        [
            str(BUILD / "bench" / "bridge_host_bench"),
            str(PLUGIN),
            str(model_path),
            "--benchmark_format=json",
            "--benchmark_min_time=0.3s",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    for b in json.loads(gb.stdout)["benchmarks"]:
        n = int(b["name"].split("/")[1])
        for r in rows:
            if r["n"] == n:
                r["cpp"] = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
    lines = [
        "| elements | ORT `run` (µs) | host C ABI from C++ (µs) | host C ABI via ctypes (µs) | `CustomOpSession.run` (µs) | ORT / host (C ABI via ctypes) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['ort'] * 1e6:.2f} | {r['cpp'] * 1e6:.2f} | {r['ctypes'] * 1e6:.2f} | "
            f"{r['session'] * 1e6:.2f} | {r['ort'] / r['ctypes']:.2f}x |"
        )
    table = "\n".join(lines)
    print(table)
    if args.docs:
        write_section(
            "bridge_ort_called_by_light",
            "## Host for ORT plugins vs ONNX Runtime (`bench/bridge_vs_ort.py`)\n\n"
            "The independent example plugin (float32 LeakyRelu, its own scalar loop) run by "
            f"ONNX Runtime {ort.__version__} and by onnx-light's host, one thread, median of 5 "
            "batches. `CustomOpSession.run` copies its input on purpose (the plugin API hands "
            "out mutable pointers). Regenerate with `.venv/bin/python bench/bridge_vs_ort.py "
            f"--docs`.\n\n{table}",
        )


if __name__ == "__main__":
    main()
