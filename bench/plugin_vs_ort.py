"""onnx-light's ORT plugin (onnx_light::LeakyRelu, onnx_light_cpu::Log) under real ONNX
Runtime, side by side with ONNX Runtime's own ai.onnx LeakyRelu and Log, one thread, at 1,
4 Ki, 1 Mi and 16 Mi elements in float16, bfloat16, float32 and float64. Where ORT has no
kernel of its own for a type its users wrap the op in Casts (marked "cast"), which is what
is measured for them. bfloat16 goes through an IO binding in both columns.

    .venv/bin/python bench/plugin_vs_ort.py [--docs]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import runtime_vs_ort as rv  # noqa: E402  (model builders, ORT helpers)
from _common import timeit, write_section  # noqa: E402

PLUGIN = rv.REPO / "build" / "lib" / "libonnx_light_ort_bridge_ops_light_called_by_ort.so"
DOMAINS = {"LeakyRelu": "onnx_light", "Log": "onnx_light_cpu"}
SIZES = {"1": 1, "4Ki": 4096, "1Mi": 1 << 20, "16Mi": 1 << 24}


def plugin_session(data: bytes):
    so = rv.ort.SessionOptions()
    so.register_custom_ops_library(str(PLUGIN))
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return rv.ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for op, domain in DOMAINS.items():
        for tname, (elem, dtype) in rv.TYPES.items():
            plugin = plugin_session(rv.model(op, elem, domain=domain).SerializeToString())
            how = "native"
            try:
                ref = rv.ort_session(rv.model(op, elem).SerializeToString())
                rv.ort_run(ref, np.ones(4, dtype), elem)
            except Exception:  # noqa: BLE001 - ORT has no kernel of its own for this type
                ref = rv.ort_session(rv.model(op, elem, via_float=True).SerializeToString())
                how = "cast"
            for sname, n in SIZES.items():
                x = (
                    np.exp(rng.uniform(-5, 5, n)) if op == "Log" else rng.standard_normal(n)
                ).astype(dtype)
                a = rv.ort_run(plugin, x, elem).astype(np.float64)
                b = rv.ort_run(ref, x, elem).astype(np.float64)
                np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)
                t_plugin = timeit(lambda: rv.ort_run(plugin, x, elem))
                t_ref = timeit(lambda: rv.ort_run(ref, x, elem))
                rows.append((op, tname, sname, how, t_plugin, t_ref))
                print(
                    f"{op:9s} {tname:8s} {sname:5s} plugin {t_plugin*1e6:10.1f} us  ort({how}) "
                    f"{t_ref*1e6:10.1f} us  x{t_ref/t_plugin:6.2f}",
                    flush=True,
                )
    lines = [
        "| op | type | elements | plugin in ORT µs | ORT's own µs (how) | speed-up |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for op, tname, sname, how, tp, tr in rows:
        lines.append(
            f"| {op} | {tname} | {sname} | {rv.fmt_us(tp)} | {rv.fmt_us(tr)} ({how}) | {tr / tp:.2f}x |"
        )
    table = "\n".join(lines)
    print(table)
    if args.docs:
        write_section(
            "plugin",
            "## onnx-light's kernels inside ONNX Runtime (`bench/plugin_vs_ort.py`)\n\n"
            f"Under onnxruntime {rv.ort.__version__}, one intra-op thread, median of 5 batches, "
            "from Python in both columns. The 1-element rows show the cost of going through the "
            "custom-op interface against ORT's built-in kernel dispatch. Regenerate with "
            f"`.venv/bin/python bench/plugin_vs_ort.py --docs`.\n\n{table}",
        )


if __name__ == "__main__":
    main()
