"""Single-op models, onnx-light against ONNX Runtime in the same process: each row of
bench/ops/rows/<family>.py (an op, its shapes and types, attributes; weights as constants)
is built once, loaded by both runtimes from the same bytes with the same thread count, its
outputs compared (a sanity check that both ran the same thing), and timed alternately
(median of 5 batches, ORT first then onnx-light, then again the other way round; the lower
median of each counts). Prints ratios: onnx-light's time over ORT's, below 1 is faster.

    .venv/bin/python bench/ops/run.py                       # every row, 1 thread
    .venv/bin/python bench/ops/run.py --filter Conv         # rows whose name has "Conv"
    .venv/bin/python bench/ops/run.py --family math,nn --threads 2
    .venv/bin/python bench/ops/run.py --docs                # also rewrite its section of
                                                            # docs/performance.md
    .venv/bin/python bench/ops/run.py --worst 10            # then the 10 slowest rows
    .venv/bin/python bench/ops/run.py --gate 1.5            # exit 1 listing rows above 1.5x

A new op adds its rows to its family's module (rows/<family>.py, one OpCase each; a new
family is a new module listed in rows/__init__.py). onnxruntime is the baseline only.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

# numpy's own OpenBLAS would spin threads on a 2-core machine while we measure.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(HERE))

import onnxruntime as ort  # noqa: E402
import rows  # noqa: E402
from _common import cpu_name, timeit, write_section  # noqa: E402

import onnx_light  # noqa: E402


def as_array(x) -> np.ndarray:
    """An output as an array: a list of dicts (a sequence of maps) as its rows of values in
    key order."""
    if isinstance(x, list) and x and isinstance(x[0], dict):
        return np.array([[d[k] for k in sorted(d)] for d in x], np.float32)
    return np.asarray(x)


def max_difference(a, b) -> float:
    if a.dtype != b.dtype or a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    if a.dtype == bool or np.issubdtype(a.dtype, np.integer):
        return float(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64))))
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return float(np.max(np.where(both_nan, 0, d)))


def measure(case, threads: int, min_time: float) -> dict:
    data, feeds = case.model()
    light = onnx_light.RuntimeSession(data, intra_op_threads=threads)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    theirs = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    got = light.run(None, feeds)
    want = theirs.run(None, feeds)
    diff = max(max_difference(as_array(g), as_array(w)) for g, w in zip(got, want))

    def run_light():
        light.run(None, feeds)

    def run_ort():
        theirs.run(None, feeds)

    t_ort = timeit(run_ort, min_time)
    t_light = timeit(run_light, min_time)
    t_light = min(t_light, timeit(run_light, min_time))
    t_ort = min(t_ort, timeit(run_ort, min_time))
    return {"light": t_light, "ort": t_ort, "diff": diff, "ok": diff <= case.tol}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", default="", help="comma-separated families (rows/*.py)")
    parser.add_argument("--filter", default="", help="only rows whose name contains this")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per measurement")
    parser.add_argument("--docs", action="store_true", help="rewrite docs/performance.md")
    parser.add_argument("--worst", type=int, default=0, help="print the N slowest rows at the end")
    parser.add_argument(
        "--gate", type=float, default=0.0, help="exit 1 listing every row above this ratio"
    )
    args = parser.parse_args()
    families = [f for f in args.family.split(",") if f] or list(rows.FAMILIES)
    lines = [
        "| family | row | light µs | ORT µs | light / ORT | max diff |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    print(lines[0])
    ratios, bad, named = [], [], []
    for family in families:
        for case in rows.FAMILIES[family]:
            if args.filter and args.filter not in case.name:
                continue
            r = measure(case, args.threads, args.min_time)
            ratio = r["light"] / r["ort"]
            ratios.append(ratio)
            named.append((ratio, family, case.name))
            if not r["ok"]:
                bad.append(case.name)
            line = (
                f"| {family} | {case.name} | {r['light'] * 1e6:.1f} | {r['ort'] * 1e6:.1f} | "
                f"{ratio:.2f}x | {r['diff']:.1e}{'' if r['ok'] else ' (!)'} |"
            )
            lines.append(line)
            print(line, flush=True)
    if not ratios:
        print("no row matched")
        return 1
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    summary = (
        f"{len(ratios)} rows at {args.threads} thread(s) on {cpu_name()}: geometric mean "
        f"{geo:.2f}x ORT's time; best {min(ratios):.2f}x, worst {max(ratios):.2f}x."
    )
    print(summary)
    if bad:
        print(f"outputs differ beyond the row's tolerance: {', '.join(bad)}")
    named.sort(reverse=True)
    if args.worst:
        print(f"worst {min(args.worst, len(named))} rows:")
        for ratio, family, name in named[: args.worst]:
            print(f"  {ratio:6.2f}x  {family}: {name}")
    above = [n for n in named if args.gate and n[0] > args.gate]
    if args.gate:
        print(f"gate {args.gate:.2f}x: {len(above)} of {len(named)} rows above it")
        for ratio, family, name in above:
            print(f"  {ratio:6.2f}x  {family}: {name}")
    if args.docs:
        write_section(
            f"bench-ops-{args.threads}",
            "\n".join(lines)
            + "\n\n"
            + summary
            + "\n\n`.venv/bin/python bench/ops/run.py"
            + (f" --threads {args.threads}" if args.threads != 1 else "")
            + " --docs` writes this table.",
        )
    return 1 if bad or above else 0


if __name__ == "__main__":
    sys.exit(main())
