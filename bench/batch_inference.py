"""Batch inference at scale on this machine: rows per second of onnx_light.batch's
BatchPredictor with 1 and 2 workers (one intra-op thread each), onnx-light against ONNX
Runtime in the same harness, in two harnesses:

- ``ray``: Ray Data, ``map_batches`` with an actor pool of that many actors
  (``ray.init(num_cpus=2)``), the job timed from the first batch's
  submission to the last result (actor start included, the dataset already in the object
  store);
- ``pool``: plain ``multiprocessing`` (fork), a pool of that many processes, each holding one
  predictor (the pool's initializer), fed chunks of rows.

The ORT rows use the same BatchPredictor with its runs going to an
``onnxruntime.InferenceSession`` (one intra-op thread) made in each worker. Models: MTCNN's
P-Net on 12x12 crops (a batch axis), Magika's file-type classifier (a batch axis, 2,048
int32 per row, about 10 ms a row) and hello_deepa (a fixed [1, 25, 96] input: row by row). Each cell is the
best of ``--rounds`` runs, light and ORT alternating.

    .venv/bin/python bench/batch_inference.py            # print the table
    .venv/bin/python bench/batch_inference.py --docs     # also rewrite its section of
                                                         # docs/performance.md

onnxruntime and Ray are the comparison baseline and harness only (test venv).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

from _common import cpu_name, write_section  # noqa: E402

from onnx_light.batch import BatchPredictor  # noqa: E402

MODELS = REPO / "third_party" / "models"


class OrtPredictor(BatchPredictor):
    """BatchPredictor whose runs go to ONNX Runtime (one intra-op thread), for comparison:
    the same column handling, chunking and row-by-row logic."""

    def _run(self, session, arrays, rows):
        ort_session = getattr(self, "_ort", None)
        if ort_session is None:
            import onnxruntime as ort

            so = ort.SessionOptions()
            so.intra_op_num_threads = 1
            so.inter_op_num_threads = 1
            ort_session = self._ort = ort.InferenceSession(
                self._model, so, providers=["CPUExecutionProvider"]
            )
        return super()._run(ort_session, arrays, rows)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_ort", None)
        return state


def cases(rows_scale: float):
    rng = np.random.default_rng(0)
    n = int(100_000 * rows_scale)
    yield (
        "mtcnn_pnet (12x12 crops)",
        MODELS / "mtcnn_pnet.onnx",
        "input_1",
        rng.random((n, 12, 12, 3), dtype=np.float32),
        1000,
    )
    n = int(1_000 * rows_scale)
    yield (
        "magika_standard_v3_3",
        MODELS / "magika_standard_v3_3.onnx",
        "bytes",
        rng.integers(0, 257, (n, 2048), dtype=np.int32),
        100,
    )
    n = int(20_000 * rows_scale)
    yield (
        "hello_deepa (row by row)",
        MODELS / "hello_deepa.onnx",
        "onnx::Flatten_0",
        rng.random((n, 25, 96), dtype=np.float32),
        1000,
    )


# -- multiprocessing ------------------------------------------------------------------------

_worker_predictor = None


def _init_worker(predictor):
    global _worker_predictor
    _worker_predictor = predictor
    _worker_predictor.predict({k: v[:1] for k, v in _warm_feed.items()})  # session, first run


def _predict(chunk):
    return len(next(iter(_worker_predictor.predict(chunk).values())))


_warm_feed: dict = {}


def pool_rows_per_s(predictor, name, x, workers, batch) -> float:
    global _warm_feed
    _warm_feed = {name: x[:1]}
    chunks = [{name: x[i : i + batch]} for i in range(0, len(x), batch)]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(predictor,)) as pool:
        pool.map(_predict, chunks[:workers], chunksize=1)  # every worker started
        t0 = time.perf_counter()
        done = sum(pool.map(_predict, chunks, chunksize=1))
        elapsed = time.perf_counter() - t0
    assert done == len(x)
    return len(x) / elapsed


# -- Ray Data -------------------------------------------------------------------------------


def ray_rows_per_s(ray, cls, path, name, x, workers, batch) -> float:
    import pandas as pd

    parts = [pd.DataFrame({name: list(x[i : i + 5 * batch])}) for i in range(0, len(x), 5 * batch)]
    ds = ray.data.from_pandas(parts).materialize()
    t0 = time.perf_counter()
    out = ds.map_batches(
        cls,
        fn_constructor_kwargs=dict(model=str(path), outputs=None, keep_columns=False),
        compute=ray.data.ActorPoolStrategy(size=workers),
        batch_size=batch,
        batch_format="numpy",
    ).count()
    elapsed = time.perf_counter() - t0
    assert out == len(x)
    return len(x) / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rows-scale", type=float, default=1.0, help="scale the row counts")
    ap.add_argument("--harness", choices=["ray", "pool", "both"], default="both")
    ap.add_argument("--docs", action="store_true", help="rewrite docs/performance.md's section")
    args = ap.parse_args()

    harnesses = ["pool", "ray"] if args.harness == "both" else [args.harness]
    data = list(cases(args.rows_scale))
    rows = []
    ray = None
    # The pool first: its forked workers must not inherit Ray's driver state
    for harness in harnesses:
        if harness == "ray":
            import ray
            import ray.data

            env = {"PYTHONPATH": os.pathsep.join([str(REPO / "python"), str(REPO / "bench")])}
            ray.init(
                num_cpus=2,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": env},
            )
            ray.data.DataContext.get_current().enable_progress_bars = False
        for label, path, name, x, batch in data:
            for workers in (1, 2):
                best = {"light": 0.0, "ort": 0.0}
                for _ in range(args.rounds):
                    for runtime, cls in (("light", BatchPredictor), ("ort", OrtPredictor)):
                        if harness == "pool":
                            r = pool_rows_per_s(cls(str(path)), name, x, workers, batch)
                        else:
                            r = ray_rows_per_s(ray, cls, path, name, x, workers, batch)
                        best[runtime] = max(best[runtime], r)
                rows.append((label, len(x), batch, harness, workers, best["light"], best["ort"]))
                print(
                    f"{label:28} {harness:5} {workers} worker(s): light {best['light']:10,.0f} "
                    f"rows/s, ORT {best['ort']:10,.0f} rows/s "
                    f"(time {best['ort'] / best['light']:.2f}x ORT's)",
                    flush=True,
                )
    if ray is not None:
        ray.shutdown()

    table = [
        "| model | rows | batch | harness | workers | onnx-light rows/s | ORT rows/s | onnx-light time / ORT time |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for label, n, batch, harness, workers, light, ort in rows:
        table.append(
            f"| {label} | {n:,} | {batch:,} | {harness} | {workers} | {light:,.0f} | {ort:,.0f} | "
            f"{ort / light:.2f}x |"
        )
    text = "\n".join(table)
    print(text)
    if args.docs:
        import onnxruntime

        body = (
            "## Batch inference at scale (`bench/batch_inference.py`)\n\n"
            f"Measured on {cpu_name()}, {os.cpu_count()} cores; onnxruntime "
            f"{onnxruntime.__version__}; one intra-op thread per worker for both runtimes; "
            f"batches as the table says; best of {args.rounds} runs per cell. `pool`: "
            "multiprocessing (fork), timed after every worker made its session; `ray`: Ray "
            "Data `map_batches` with an actor pool, the whole job timed (actor start "
            "included). The last column below 1.0 means onnx-light took less time. "
            "Regenerate with `.venv/bin/python bench/batch_inference.py --docs`.\n\n" + text
        )
        write_section("batch", body)


if __name__ == "__main__":
    main()
