"""onnx-light's runtime side by side with ONNX Runtime, one thread each, same process.

Rows: LeakyRelu and Log at 4 Ki, 1 Mi and 16 Mi elements in float16, bfloat16, float32 and
float64, numpy's memcpy of the same bytes, per-run overhead on one element, session
creation for a one-node model, and peak RSS. Where ONNX Runtime has no kernel for a type
its users have to wrap the op in Casts to and from float32; that is what is measured for
them (marked "cast" in the table).

    .venv/bin/python bench/runtime_vs_ort.py           # print the table
    .venv/bin/python bench/runtime_vs_ort.py --docs    # also rewrite docs/performance.md
                                                        # and docs/runtime_vs_ort.svg

onnxruntime is the comparison baseline only; it is imported here and nowhere in the
library.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import onnxruntime as ort  # noqa: E402
from _common import cpu_name, timeit, write_section  # noqa: E402

import onnx_light  # noqa: E402
from onnx_light.onnx import TensorProto, helper  # noqa: E402

TYPES = {
    "float16": (TensorProto.FLOAT16, np.float16),
    "bfloat16": (TensorProto.BFLOAT16, ml_dtypes.bfloat16),
    "float32": (TensorProto.FLOAT, np.float32),
    "float64": (TensorProto.DOUBLE, np.float64),
}
SIZES = {"4Ki": 4096, "1Mi": 1 << 20, "16Mi": 1 << 24}


def model(op: str, elem: int, via_float: bool = False, domain: str = "", opset: int = 17):
    attrs = {"alpha": 0.1} if op == "LeakyRelu" else {}
    if via_float:
        nodes = [
            helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT),
            helper.make_node(op, ["xf"], ["yf"], **attrs),
            helper.make_node("Cast", ["yf"], ["y"], to=elem),
        ]
    else:
        nodes = [helper.make_node(op, ["x"], ["y"], domain=domain, **attrs)]
    graph = helper.make_graph(
        nodes,
        "bench",
        [helper.make_tensor_value_info("x", elem, ["N"])],
        [helper.make_tensor_value_info("y", elem, ["N"])],
    )
    imports = [helper.make_opsetid("", opset)]
    if domain:
        imports.append(helper.make_opsetid(domain, 1))
    return helper.make_model(graph, opset_imports=imports, ir_version=9)


def ort_session(data: bytes) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def ort_run(session, x: np.ndarray, elem: int) -> np.ndarray:
    """ORT's Python API takes no ml_dtypes arrays: bfloat16 goes in as an OrtValue over the
    same bits through an IO binding (no copy), which is what an ORT user has to do."""
    if elem != TensorProto.BFLOAT16:
        return session.run(None, {"x": x})[0]
    out = np.empty(x.shape, np.uint16)
    binding = session.io_binding()
    binding.bind_ortvalue_input(
        "x", ort.OrtValue.ortvalue_from_numpy_with_onnx_type(x.view(np.uint16), elem)
    )
    binding.bind_ortvalue_output("y", ort.OrtValue.ortvalue_from_numpy_with_onnx_type(out, elem))
    session.run_with_iobinding(binding)
    return out.view(ml_dtypes.bfloat16)


def kernel_rows(sizes):
    rows = []
    rng = np.random.default_rng(0)
    for op in ("LeakyRelu", "Log"):
        for tname, (elem, dtype) in TYPES.items():
            light = onnx_light.RuntimeSession(model(op, elem).SerializeToString())
            data = model(op, elem).SerializeToString()
            how = "native"
            try:
                ref = ort_session(data)
                ort_run(ref, np.ones(4, dtype), elem)
            except Exception:  # noqa: BLE001 - ORT has no kernel for this type
                ref = ort_session(model(op, elem, via_float=True).SerializeToString())
                how = "cast"
            for sname, n in sizes.items():
                if op == "Log":
                    x = np.exp(rng.uniform(-5, 5, n)).astype(dtype)
                else:
                    x = rng.standard_normal(n).astype(dtype)
                feed = {"x": x}
                a = light.run(None, feed)[0]
                b = ort_run(ref, x, elem)
                np.testing.assert_allclose(
                    a.astype(np.float64), b.astype(np.float64), rtol=1e-2, atol=1e-2
                )
                t_light = timeit(lambda: light.run(None, feed))
                t_ref = timeit(lambda: ort_run(ref, x, elem))
                dst = np.empty_like(x)
                t_copy = timeit(lambda: np.copyto(dst, x))
                rows.append(
                    {
                        "op": op,
                        "type": tname,
                        "size": sname,
                        "ort": how,
                        "light_s": t_light,
                        "ort_s": t_ref,
                        "memcpy_s": t_copy,
                        "bytes": x.nbytes,
                    }
                )
                print(
                    f"{op:9s} {tname:8s} {sname:5s} light {t_light * 1e6:10.1f} us  "
                    f"ort({how}) {t_ref * 1e6:10.1f} us  x{t_ref / t_light:6.2f}",
                    flush=True,
                )
    return rows


def overhead_rows():
    data = model("LeakyRelu", TensorProto.FLOAT).SerializeToString()
    light = onnx_light.RuntimeSession(data)
    ref = ort_session(data)
    x = {"x": np.ones(1, np.float32)}
    run_light = timeit(lambda: light.run(None, x), batches=7)
    run_ort = timeit(lambda: ref.run(None, x), batches=7)
    create_light = timeit(lambda: onnx_light.RuntimeSession(data), batches=7)
    create_ort = timeit(lambda: ort_session(data), batches=7)
    # C++ level (no Python): the onnx-light tool's own timing of Run on one element.
    tool = REPO / "build" / "onnx-light"
    path = REPO / "build" / "bench_one_node.onnx"
    path.write_bytes(data)
    out = subprocess.run(
        [str(tool), "run", str(path), "--random", "--dim", "N=1", "--repeat", "100000"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    median_us = float(out.split("median ")[1].split(" us")[0])
    created_ms = float(out.split("session created in ")[1].split(" ms")[0])
    return {
        "run_light_py_s": run_light,
        "run_ort_py_s": run_ort,
        "run_light_cpp_s": median_us * 1e-6,
        "create_light_py_s": create_light,
        "create_ort_py_s": create_ort,
        "create_light_cpp_s": created_ms * 1e-3,
    }


RSS_PROBE = r"""
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
which = sys.argv[2]
data = open(sys.argv[3], "rb").read()
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1])
if which == "onnx-light":
    import onnx_light as lib
else:
    import onnxruntime as lib
x = {"x": np.ones(1024, np.float32)}
open("/proc/self/clear_refs", "w").write("5")  # reset the peak (VmHWM) to the current RSS
before = status("VmRSS:")
if which == "onnx-light":
    s = lib.RuntimeSession(data)
else:
    so = lib.SessionOptions(); so.intra_op_num_threads = 1
    s = lib.InferenceSession(data, so, providers=["CPUExecutionProvider"])
s.run(None, x)
print((status("VmHWM:") - before) / 1024)
"""


def rss_rows():
    """Peak RSS added by creating and running a one-node session (after imports), and the
    peak RSS of the whole C++ tool process doing the same."""
    path = REPO / "build" / "bench_one_node.onnx"
    out = {}
    for which in ("onnx-light", "onnxruntime"):
        r = subprocess.run(
            [sys.executable, "-c", RSS_PROBE, str(REPO / "python"), which, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        out[which] = float(r.stdout.strip())
    # The tool reports its own VmHWM (ru_maxrss would include the pre-exec fork).
    text = subprocess.run(
        [str(REPO / "build" / "onnx-light"), "run", str(path), "--random", "--dim", "N=1024"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    out["tool"] = float(text.split("peak RSS ")[1].split(" MiB")[0])
    return out


def fmt_us(s: float) -> str:
    return f"{s * 1e6:.2f}" if s < 1e-4 else f"{s * 1e6:.0f}"


def render(rows, over, rss) -> str:
    lines = [
        "| op | type | elements | onnx-light µs | ORT µs (how) | speed-up vs ORT | memcpy µs | onnx-light GB/s (in+out) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        gbs = 2 * r["bytes"] / r["light_s"] / 1e9
        lines.append(
            f"| {r['op']} | {r['type']} | {r['size']} | {fmt_us(r['light_s'])} | "
            f"{fmt_us(r['ort_s'])} ({r['ort']}) | {r['ort_s'] / r['light_s']:.2f}x | "
            f"{fmt_us(r['memcpy_s'])} | {gbs:.1f} |"
        )
    lines += [
        "",
        "| measure | onnx-light | ONNX Runtime | ratio |",
        "| --- | ---: | ---: | ---: |",
        f"| run on 1 element, from Python (µs) | {over['run_light_py_s'] * 1e6:.2f} | "
        f"{over['run_ort_py_s'] * 1e6:.2f} | {over['run_ort_py_s'] / over['run_light_py_s']:.1f}x |",
        f"| run on 1 element, C++ `RuntimeSession::Run` (µs, median) | "
        f"{over['run_light_cpp_s'] * 1e6:.2f} | - | - |",
        f"| session creation, 1-node model, from Python (µs) | {over['create_light_py_s'] * 1e6:.1f} | "
        f"{over['create_ort_py_s'] * 1e6:.1f} | {over['create_ort_py_s'] / over['create_light_py_s']:.1f}x |",
        f"| session creation incl. file load, C++ tool (µs) | {over['create_light_cpp_s'] * 1e6:.1f} | - | - |",
        f"| peak RSS added by creating + running a 1-node session in Python (MiB) | "
        f"{rss['onnx-light']:.1f} | {rss['onnxruntime']:.1f} | "
        f"{rss['onnxruntime'] / max(rss['onnx-light'], 0.01):.0f}x |",
        f"| peak RSS of the whole `onnx-light run` process, 1-node model (MiB) | {rss['tool']:.1f} | - | - |",
    ]
    return "\n".join(lines)


def svg(rows) -> str:
    """A bar chart of speed-ups (log scale), one bar per row; no plotting library needed."""
    import math

    width, bar_h, left = 760, 14, 230
    height = 40 + bar_h * len(rows) + 30
    scale = (width - left - 60) / math.log10(64)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="11">',
        f'<text x="10" y="18" font-size="13">onnx-light speed-up over ONNX Runtime '
        "(one thread, log scale)</text>",
    ]
    x1 = left
    parts.append(f'<line x1="{x1}" y1="28" x2="{x1}" y2="{height - 20}" stroke="#444"/>')
    for i, r in enumerate(rows):
        y = 32 + i * bar_h
        ratio = r["ort_s"] / r["light_s"]
        w = max(1.0, scale * (math.log10(ratio) + 0.0)) if ratio >= 1 else scale * math.log10(ratio)
        color = "#2a7" if ratio >= 1 else "#c33"
        x = x1 if w >= 0 else x1 + w
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="{abs(w):.1f}" height="{bar_h - 3}" fill="{color}"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + bar_h - 5}" text-anchor="end">'
            f"{r['op']} {r['type']} {r['size']}</text>"
        )
        parts.append(f'<text x="{x1 + max(w, 0) + 4:.1f}" y="{y + bar_h - 5}">{ratio:.1f}x</text>')
    for k in (1, 2, 4, 8, 16, 32):
        x = x1 + scale * math.log10(k)
        parts.append(
            f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" fill="#666">{k}x</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def write_docs(table: str, rows) -> None:
    (REPO / "docs" / "runtime_vs_ort.svg").write_text(svg(rows))
    write_section(
        "runtime",
        "## Runtime vs ONNX Runtime (`bench/runtime_vs_ort.py`)\n\n"
        f"Measured on {cpu_name()}, {os.cpu_count()} cores, one intra-op thread for both "
        f"runtimes, onnxruntime {ort.__version__}, onnx-light SIMD target "
        f"{onnx_light._core.simd_target()}; median of 5 batches per row, from Python "
        "(`session.run` in both). Regenerate with "
        "`.venv/bin/python bench/runtime_vs_ort.py --docs`.\n\n"
        f"{table}\n\n![speed-ups](runtime_vs_ort.svg)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", action="store_true")
    parser.add_argument("--quick", action="store_true", help="4Ki and 1Mi only")
    args = parser.parse_args()
    sizes = dict(list(SIZES.items())[:2]) if args.quick else SIZES
    rows = kernel_rows(sizes)
    over = overhead_rows()
    rss = rss_rows()
    table = render(rows, over, rss)
    print(table)
    (REPO / "build" / "bench_runtime.json").write_text(json.dumps({"rows": rows, **over, **rss}))
    if args.docs:
        write_docs(table, rows)


if __name__ == "__main__":
    main()
