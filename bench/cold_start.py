"""Cold start, onnx-light against ONNX Runtime in the same script: the time `import` takes
in a fresh interpreter, then the first session and the first run of a small and a large
model (wall time and resident memory), each in a process of its own, the median of
--rounds processes.

    .venv/bin/python bench/cold_start.py              # the table
    .venv/bin/python bench/cold_start.py --rounds 9

RSS is the process's resident memory after the step (VmRSS) and its peak (VmHWM), in MiB,
the interpreter and numpy included (the same for both runtimes). The models are
scripts/setup.sh's (bench/models_vs_ort.py lists them).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

SMALL, LARGE = "silero_vad_op15", "ppocr_v4_rec"


def vm_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(runtime: str, model: str) -> None:
    """Prints the step times (ms) and memory (MiB) of one cold process as JSON."""
    import numpy  # noqa: F401  (both runtimes need it; not part of their import)

    t0 = time.perf_counter()
    if runtime == "ort":
        import onnxruntime  # noqa: F401
    else:
        import onnx_light  # noqa: F401
    t1 = time.perf_counter()
    out = {"import_ms": (t1 - t0) * 1e3, "import_rss": vm_mib("VmRSS")}
    if model:
        from models_vs_ort import feeds_for, make_session, model_path

        t1 = time.perf_counter()
        s = make_session(runtime, model_path(model), 1)
        t2 = time.perf_counter()
        feeds = feeds_for(model, s)
        t3 = time.perf_counter()
        s.run(None, feeds)
        t4 = time.perf_counter()
        out.update(
            session_ms=(t2 - t1) * 1e3,
            run_ms=(t4 - t3) * 1e3,
            rss=vm_mib("VmRSS"),
            peak=vm_mib("VmHWM"),
        )
    print(json.dumps(out))


def one(runtime: str, model: str) -> dict:
    r = subprocess.run(
        [sys.executable, __file__, "--child", runtime, model], capture_output=True, text=True
    )
    if r.returncode != 0:
        raise SystemExit(f"{runtime} {model or 'import'} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def median(rows: list[dict], key: str) -> float:
    values = sorted(r[key] for r in rows)
    return values[len(values) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print("| step | onnx-light | ORT | ratio |")
    print("|---|---:|---:|---:|")
    for model in ("", SMALL, LARGE):
        rows = {rt: [one(rt, model) for _ in range(args.rounds)] for rt in ("light", "ort")}
        keys = (
            [("import_ms", "import, ms"), ("import_rss", "RSS after import, MiB")]
            if not model
            else [
                ("session_ms", "first session, ms"),
                ("run_ms", "first run, ms"),
                ("peak", "peak RSS, MiB"),
            ]
        )
        for key, label in keys:
            a, b = median(rows["light"], key), median(rows["ort"], key)
            where = f"{model}: " if model else ""
            print(f"| {where}{label} | {a:.1f} | {b:.1f} | {a / b:.2f}x |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    else:
        main()
