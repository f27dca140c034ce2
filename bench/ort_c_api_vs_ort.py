"""Per-call overhead of ORT's C API on onnx-light (libonnxruntime.so.1) beside real ORT 1.29's
C API (the pinned npm package's library, scripts/setup.sh) and onnx-light's own C ABI: the
same C++ program (bench/ort_c_api_run.cc), one process per row, one thread, a run on a
tensor over the program's buffer and the output released each call.

    .venv/bin/python bench/ort_c_api_vs_ort.py           # the table
    .venv/bin/python bench/ort_c_api_vs_ort.py --docs    # also rewrite its sections of
                                                         # docs/performance.md and
                                                         # docs/ort_c_api.md

Models: Relu on 1 element (pure per-call cost), on 4 Ki and on 1 Mi elements.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "bench"))

from _common import cpu_name, write_section  # noqa: E402

from onnx_light.onnx import TensorProto, helper  # noqa: E402

SIZES = {"1": 1, "4Ki": 4096, "1Mi": 1 << 20}
ORT_LIB = REPO / "third_party" / "ort-lib" / "libonnxruntime.so"


def relu_model(n: int, path: Path) -> Path:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path.write_bytes(model.SerializeToString())
    return path


def run(binary: Path, mode: str, model: Path, n: int, lib_dir: Path, seconds: float) -> float:
    env = dict(os.environ, LD_LIBRARY_PATH=str(lib_dir))
    out = subprocess.run(
        [str(binary), mode, str(model), str(n), str(seconds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", action="store_true", help="rewrite docs/performance.md's section")
    ap.add_argument("--seconds", type=float, default=1.0, help="time per row (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs per cell")
    args = ap.parse_args()
    subprocess.run(
        ["cmake", "--build", str(BUILD), "--target", "ort_c_api_run"],
        check=True,
        capture_output=True,
    )
    binary = BUILD / "bench" / "ort_c_api_run"
    with tempfile.TemporaryDirectory() as tmp:
        real = Path(tmp) / "real-ort"
        real.mkdir()
        (real / "libonnxruntime.so.1").symlink_to(ORT_LIB)
        rows = []
        for label, n in SIZES.items():
            model = relu_model(n, Path(tmp) / f"relu_{label}.onnx")
            best = {}
            for name, mode, lib in [
                ("ORT C API on onnx-light", "ort", BUILD / "lib"),
                ("ORT C API on ORT 1.29", "ort", real),
                ("onnx-light C ABI", "light", BUILD / "lib"),
            ]:
                best[name] = min(
                    run(binary, mode, model, n, lib, args.seconds) for _ in range(args.rounds)
                )
            rows.append((label, best))
    names = list(rows[0][1])
    lines = [
        f"Per-call time of a Relu run through each C interface (µs, one thread; {cpu_name()}; "
        "`.venv/bin/python bench/ort_c_api_vs_ort.py`):",
        "",
        "| elements | " + " | ".join(names) + " | onnx-light / ORT |",
        "| --- | " + " | ".join("---" for _ in names) + " | --- |",
    ]
    for label, best in rows:
        ratio = best[names[0]] / best[names[1]]
        lines.append(
            f"| {label} | " + " | ".join(f"{best[n]:.2f}" for n in names) + f" | {ratio:.2f}x |"
        )
    text = "\n".join(lines)
    print(text)
    if args.docs:
        write_section("ort_c_api", text)
        page = REPO / "docs" / "ort_c_api.md"  # the same table on the C API's page
        doc = page.read_text()
        begin, end = "<!-- BEGIN ort_c_api -->", "<!-- END ort_c_api -->"
        head, rest = doc.split(begin, 1)
        page.write_text(head + begin + "\n" + text + "\n" + end + rest.split(end, 1)[1])


if __name__ == "__main__":
    main()
