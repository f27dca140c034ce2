"""Writes the smoke suite's data: a real model (PP-OCRv4 text detection, third_party/models),
a fixed input and ONNX Runtime's outputs for it, computed here in the project venv (ORT is
the test oracle; the smoke venv compares onnx-light against these stored outputs).

    .venv/bin/python tests/wheel/make_references.py DATA_DIR
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "third_party" / "models" / "ch_PP-OCRv4_det_infer.onnx"


def main() -> int:
    data = Path(sys.argv[1])
    data.mkdir(parents=True, exist_ok=True)
    if not MODEL.exists():
        print(f"make_references: {MODEL} is missing: run scripts/setup.sh", file=sys.stderr)
        return 1
    shutil.copyfile(MODEL, data / "real_model.onnx")
    x = np.random.default_rng(7).random((1, 3, 96, 128), dtype=np.float32)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(str(MODEL), opts, providers=["CPUExecutionProvider"])
    (y,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.savez(data / "real_reference.npz", x=x, y=y)
    shutil.copyfile(REPO / "models" / "default.onnx", data / "default.onnx")
    shutil.copyfile(
        REPO / "models" / "ort_custom_ops_leaky_relu.onnx", data / "ort_custom_ops_leaky_relu.onnx"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
