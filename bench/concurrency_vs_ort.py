"""One session, several caller threads: runs per second with 1, 2 and 4 Python threads
calling run() on the same session (one intra-op thread), onnx-light and ONNX Runtime side
by side in one process, plus the per-run overhead on a one-node model and session
creation (first session of a process and later ones) for onnx-light.

The model is the PP-OCR mobile text-direction classifier (a real CNN, fetched by
scripts/setup.sh), input [1, 3, 48, 192]. Scaling is runs/s with N callers divided by
runs/s with one; on a 2-core machine the ideal at 2 and 4 callers is 2.0.

    .venv/bin/python bench/concurrency_vs_ort.py           # print the table
    .venv/bin/python bench/concurrency_vs_ort.py --docs    # also rewrite its section of
                                                            # docs/performance.md

onnxruntime is the comparison baseline only.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

import onnxruntime as ort  # noqa: E402
from _common import cpu_name, timeit, write_section  # noqa: E402

import onnx_light  # noqa: E402
from onnx_light.onnx import TensorProto, helper  # noqa: E402

MODEL = REPO / "third_party" / "models" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"


def throughput(run, callers: int, seconds: float) -> float:
    """Runs per second of `callers` threads calling run() for `seconds`."""
    counts = [0] * callers
    stop = threading.Event()
    start = threading.Barrier(callers + 1)

    def worker(k: int) -> None:
        start.wait()
        n = 0
        while not stop.is_set():
            run()
            n += 1
        counts[k] = n

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(callers)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def concurrency_rows(seconds: float):
    if not MODEL.exists():
        sys.exit(f"{MODEL} is missing: run scripts/setup.sh")
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    light = onnx_light.RuntimeSession(str(MODEL), intra_op_threads=1)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    ref = ort.InferenceSession(str(MODEL), so, providers=["CPUExecutionProvider"])
    runs = {
        "onnx-light": lambda: light.run(None, {"x": x}),
        "ONNX Runtime": lambda: ref.run(None, {"x": x}),
    }
    rows = {}
    for name, run in runs.items():
        for _ in range(20):
            run()
        rows[name] = {n: throughput(run, n, seconds) for n in (1, 2, 4)}
    return rows


def overhead_and_creation():
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    s = onnx_light.RuntimeSession(data)
    x = np.ones(1, np.float32)
    run_s = timeit(lambda: s.run(None, {"x": x}))
    create_s = timeit(lambda: onnx_light.RuntimeSession(data))
    # The first session of a fresh process (the built-in registry is built then).
    code = (
        "import sys, time; sys.path.insert(0, 'python'); import onnx_light;"
        "d = open(sys.argv[1], 'rb').read(); t = time.perf_counter();"
        "onnx_light.RuntimeSession(d); print(time.perf_counter() - t)"
    )
    path = REPO / "build" / "bench_relu.onnx"
    path.write_bytes(data)
    firsts = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        firsts.append(float(out.stdout))
    return run_s, create_s, float(np.median(firsts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    args = parser.parse_args()
    rows = concurrency_rows(args.seconds)
    run_s, create_s, first_s = overhead_and_creation()
    lines = [
        f"One session, N Python threads calling `run` (intra-op threads 1), "
        f"{MODEL.name} on [1, 3, 48, 192], {cpu_name()}, "
        f"{len(__import__('os').sched_getaffinity(0))} cores "
        f"(`bench/concurrency_vs_ort.py`):",
        "",
        "| runtime | 1 caller (runs/s) | 2 callers | 4 callers | scaling at 2 | scaling at 4 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r[1]:.1f} | {r[2]:.1f} | {r[4]:.1f} | "
            f"{r[2] / r[1]:.2f}x | {r[4] / r[1]:.2f}x |"
        )
    lines += [
        "",
        "| onnx-light, from Python | µs |",
        "| --- | ---: |",
        f"| run, one-node model (Relu on 1 element) | {run_s * 1e6:.2f} |",
        f"| session creation, one-node model, first of a process | {first_s * 1e6:.0f} |",
        f"| session creation, one-node model, later | {create_s * 1e6:.1f} |",
    ]
    text = "\n".join(lines)
    print(text)
    if args.docs:
        write_section("concurrency", text)


if __name__ == "__main__":
    main()
