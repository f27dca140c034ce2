"""Classical ML models (ai.onnx.ml), onnx-light against ONNX Runtime in the same run: a 500-tree
random forest and a 300-tree gradient boosting (depth 8, 50 features), a LightGBM classifier,
a multinomial logistic regression (also with ZipMap's list of dicts, the converter's
default, which times the map values out to Python) and an RBF SVC, each converted from scikit-learn / LightGBM
with skl2onnx / onnxmltools, at batch 1 and 10,000 rows and 1 and 2 intra-op threads. The
ratio is onnx-light's median time over ORT's (below 1: onnx-light is faster).

    .venv/bin/python bench/classical_ml_vs_ort.py            # the table
    .venv/bin/python bench/classical_ml_vs_ort.py --rounds 3 # median of 3 rounds per row

Models are trained on random data and written to build/bench_models/ml/ once (training the
forests takes a minute). onnxruntime, scikit-learn, LightGBM and the converters are the
baseline and the model makers only.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "python"))

from models_vs_ort import make_session, median_seconds  # noqa: E402

GENERATED = REPO / "build" / "bench_models" / "ml"
FEATURES = 50


def data(rows: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, FEATURES)).astype(np.float32)
    w = rng.normal(size=FEATURES)
    y = x @ w + np.sin(3 * x[:, 0]) * 2 + 0.1 * rng.normal(size=rows)
    return x, y.astype(np.float32)


def build(name: str) -> Path:
    path = GENERATED / f"{name}.onnx"
    if path.exists():
        return path
    from _sklearn import convert
    from _trees import convert_ml
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    GENERATED.mkdir(parents=True, exist_ok=True)
    x, y = data(4000)
    classes = np.digitize(y, np.quantile(y, [0.25, 0.5, 0.75]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "forest500":
            est = RandomForestRegressor(n_estimators=500, max_depth=8, n_jobs=2, random_state=0)
            model = convert(est.fit(x, y), x)
        elif name == "boosting300":
            est = GradientBoostingRegressor(n_estimators=300, max_depth=8, random_state=0)
            model = convert(est.fit(x, y), x)
        elif name == "lightgbm300":
            import lightgbm as lgb

            est = lgb.LGBMClassifier(n_estimators=300, num_leaves=63, max_depth=8, verbose=-1)
            model = convert_ml(est.fit(x, classes), x, "lightgbm")
        elif name == "logistic":
            model = convert(LogisticRegression(max_iter=500).fit(x, classes), x)
        elif name == "logistic_zipmap":  # probabilities as a list of dicts (ZipMap)
            est = LogisticRegression(max_iter=500).fit(x, classes)
            model = convert(est, x, zipmap=True)
        elif name == "svc_rbf":
            model = convert(SVC(kernel="rbf", gamma=0.02).fit(x[:1500], classes[:1500]), x)
        else:
            raise ValueError(name)
    path.write_bytes(model)
    return path


MODELS = ["forest500", "boosting300", "lightgbm300", "logistic", "logistic_zipmap", "svc_rbf"]


def measure(name: str, rows: int, threads: int, min_time: float) -> tuple[float, float]:
    path = build(name)
    x = data(rows, seed=1)[0]
    times = {}
    sessions = {rt: make_session(rt, path, threads) for rt in ("light", "ort")}
    for rt, s in sessions.items():
        s.run(None, {"X": x})
    for rt, s in sessions.items():
        times[rt] = median_seconds(lambda s=s: s.run(None, {"X": x}), min_time) * 1e3
    return times["light"], times["ort"]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=1, help="rounds per row; the median is reported")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timing per runtime")
    ap.add_argument("--models", nargs="*", default=MODELS)
    args = ap.parse_args()
    print("| model | rows | threads | onnx-light ms | ORT ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = []
    for name in args.models:
        for rows in (1, 10000):
            for threads in (1, 2):
                results = [measure(name, rows, threads, args.min_time) for _ in range(args.rounds)]
                light = float(np.median([r[0] for r in results]))
                ort = float(np.median([r[1] for r in results]))
                ratios.append(light / ort)
                print(
                    f"| {name} | {rows} | {threads} | {light:.3f} | {ort:.3f} | {light / ort:.2f}x |",
                    flush=True,
                )
    print(f"\ngeomean ratio {np.exp(np.mean(np.log(ratios))):.2f}x, worst {max(ratios):.2f}x")


if __name__ == "__main__":
    main()
