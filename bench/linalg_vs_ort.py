"""MatMul, Conv, Attention and whole CNNs: onnx-light's in-house loops side by side with ONNX Runtime
(MLAS), one thread each, same process, float32. The numbers decide whether onnx-light
keeps its own matrix-product loop or takes a BLAS-class library (docs/performance.md).

    .venv/bin/python bench/linalg_vs_ort.py           # print the table
    .venv/bin/python bench/linalg_vs_ort.py --docs    # also rewrite its docs section

onnxruntime is the comparison baseline only; it is imported here and nowhere in the
library.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# numpy's bundled OpenBLAS starts one spinning thread per core at import; on a 2-core
# machine they steal time from both runtimes being measured. Neither uses them.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tools"))

import runtime_vs_ort as rv  # noqa: E402
from _common import cpu_name, timeit, write_section  # noqa: E402
from conformance import data_root  # noqa: E402

import onnx_light  # noqa: E402
from onnx_light.onnx import TensorProto, helper  # noqa: E402


def one_node(op, inputs, **attrs) -> bytes:
    node = helper.make_node(op, [n for n, _ in inputs], ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def compare(label, data: bytes, feeds, rows):
    light = onnx_light.RuntimeSession(data)
    ref = rv.ort_session(data)
    got = light.run(None, feeds)[0]
    want = ref.run(None, feeds)[0]
    err = float(np.max(np.abs(got - want)) / max(1e-30, float(np.max(np.abs(want)))))
    t_light = timeit(lambda: light.run(None, feeds), min_time=0.5, batches=3)
    t_ort = timeit(lambda: ref.run(None, feeds), min_time=0.5, batches=3)
    rows.append((label, t_light, t_ort, err))
    print(
        f"{label:34s} light {t_light * 1e3:9.3f} ms  ORT {t_ort * 1e3:9.3f} ms  "
        f"ratio {t_light / t_ort:6.2f}  max rel err {err:.1e}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for n in (64, 256, 1024):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        compare(
            f"MatMul {n}x{n}x{n}",
            one_node("MatMul", [("a", [n, n]), ("b", [n, n])]),
            {"a": a, "b": b},
            rows,
        )
    for c, hw, k in ((64, 56, 3), (256, 14, 3), (64, 56, 1)):
        x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
        w = rng.standard_normal((c, c, k, k)).astype(np.float32)
        pad = [k // 2] * 4
        compare(
            f"Conv {c}x{hw}x{hw}, {c} filters {k}x{k}",
            one_node("Conv", [("x", list(x.shape)), ("w", list(w.shape))], pads=pad),
            {"x": x, "w": w},
            rows,
        )
    for heads, seq, hs in ((8, 128, 64), (12, 512, 64)):
        q, k, v = (rng.standard_normal((1, heads, seq, hs)).astype(np.float32) for _ in range(3))
        node = helper.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=1)
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "qkv"],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        )
        data = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 23)]
        ).SerializeToString()
        compare(
            f"Attention causal {heads} heads x {seq} x {hs}", data, {"q": q, "k": k, "v": v}, rows
        )
    for name in ("light_squeezenet", "light_resnet50", "light_vgg19"):
        path = data_root() / "light" / f"{name}.onnx"
        data = path.read_bytes()
        model = onnx_light.onnx.load(str(path))
        inits = {t.name for t in model.graph.initializer}
        feeds = {}
        for v in model.graph.input:
            if v.name in inits:
                continue
            dims = [d.dim_value or 1 for d in v.type.tensor_type.shape.dim]
            feeds[v.name] = rng.standard_normal(dims).astype(np.float32)
        compare(f"{name} (whole model)", data, feeds, rows)
    if args.docs:
        lines = [
            f"One thread each, float32, {cpu_name()}; median of 3 batches. Ratio = "
            "onnx-light time / ORT time (above 1: ORT is faster). Max rel err = largest "
            "absolute difference over the largest |ORT output|.",
            "",
            "| case | onnx-light | ONNX Runtime | ratio | max rel err |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for label, tl, to, err in rows:
            lines.append(
                f"| {label} | {tl * 1e3:.3f} ms | {to * 1e3:.3f} ms | "
                f"{tl / to:.2f}x | {err:.1e} |"
            )
        write_section("linalg", "\n".join(lines))


if __name__ == "__main__":
    main()
