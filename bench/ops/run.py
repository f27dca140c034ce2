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
    .venv/bin/python bench/ops/run.py --coverage            # registered kernels with no row

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
    if isinstance(x, list):  # a sequence of tensors stays a list
        return [np.asarray(v) for v in x]
    return np.asarray(x)


def max_difference(a, b) -> float:
    if isinstance(a, list) or isinstance(b, list):  # a sequence output: item by item
        if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
            return math.inf
        return max((max_difference(as_array(x), as_array(y)) for x, y in zip(a, b)), default=0.0)
    if a.dtype.kind in "UO" or b.dtype.kind in "UO":  # strings: equal or not
        return 0.0 if a.shape == b.shape and (a.astype(str) == b.astype(str)).all() else math.inf
    if a.dtype != b.dtype or a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    if a.dtype == bool or np.issubdtype(a.dtype, np.integer):
        return float(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64))))
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return float(np.max(np.where(both_nan, 0, d)))


# How ORT says it has no kernel for a row's op (a newer opset than it supports).
NO_KERNEL = ("NOT_IMPLEMENTED", "Could not find an implementation", "is under development")


def compare(case, threads: int) -> dict:
    """Both runtimes' sessions of the row's model and the largest difference of their
    outputs; "ort" is None (and "why" says why) where ORT has no kernel for the op."""
    data, feeds = case.model()
    light = onnx_light.RuntimeSession(data, intra_op_threads=threads)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    got = light.run(None, feeds)
    r = {"light": light, "feeds": feeds, "ort": None, "diff": 0.0, "ok": True}
    try:
        r["ort"] = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - ORT has no kernel (a newer opset): say so
        reason = " ".join(str(exc).split())
        if not any(s in reason for s in NO_KERNEL):
            raise  # the row is wrong, not ORT
        r["why"] = reason[-120:]
        return r
    want = r["ort"].run(None, feeds)
    r["diff"] = max(max_difference(as_array(g), as_array(w)) for g, w in zip(got, want))
    r["ok"] = r["diff"] <= case.tol
    return r


def measure(case, threads: int, min_time: float) -> dict:
    r = compare(case, threads)
    light, theirs, feeds = r["light"], r["ort"], r["feeds"]

    def run_light():
        light.run(None, feeds)

    def run_ort():
        theirs.run(None, feeds)

    t_light = timeit(run_light, min_time)
    if theirs is None:
        return {"light": t_light, "ort": None, "diff": 0.0, "ok": True, "why": r["why"]}
    t_ort = timeit(run_ort, min_time)
    t_light = min(t_light, timeit(run_light, min_time))
    t_ort = min(t_ort, timeit(run_ort, min_time))
    return {"light": t_light, "ort": t_ort, "diff": r["diff"], "ok": r["ok"]}


# Kernels no model file names: the runtime's own fused ops, made by its graph passes from
# the ops that have rows (their speed is measured by the model benchmarks).
INTERNAL_DOMAINS = ("onnx_light", "onnx_light_cpu")


def registered_kernels(tool: Path) -> set:
    """(domain, op) of every kernel `onnx-light ops` lists."""
    import subprocess

    listing = subprocess.run([str(tool), "ops"], capture_output=True, text=True, check=True)
    kernels = set()
    for line in listing.stdout.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 3 and not parts[0].isdigit() and parts[0] not in INTERNAL_DOMAINS:
            kernels.add((parts[0], parts[1]))
    return kernels


def missing_rows(tool: Path) -> list:
    """Registered kernels of ai.onnx, ai.onnx.ml and com.microsoft with no row."""
    have = {(c.domain or "ai.onnx", c.op) for cases in rows.FAMILIES.values() for c in cases}
    return sorted(registered_kernels(tool) - have)


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
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="list the registered kernels that have no row (exit 1 if any) and stop",
    )
    args = parser.parse_args()
    if args.coverage:
        build = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
        missing = missing_rows(build / "onnx-light")
        for domain, op in missing:
            print(f"no row: {domain} {op}")
        print(f"{len(missing)} registered kernels without a row")
        return 1 if missing else 0
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
            if r["ort"] is None:
                line = (
                    f"| {family} | {case.name} | {r['light'] * 1e6:.1f} | - | ORT has no kernel"
                    " | - |"
                )
                lines.append(line)
                print(line, flush=True)
                print(f"    ({r['why']})", flush=True)
                continue
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
