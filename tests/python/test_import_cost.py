"""`import onnx_light` imports nothing its caller has not used (issue 32's cold start): not
the ORT drop-in (onnx_light.ort_compat, loaded by the first use of one of its names), not
ml_dtypes (0.7's import alone took 0.7-0.9 s), not the onnx helper modules, not
importlib.abc; a float model's session and run do not pull them in either. Checked by
module name in a fresh interpreter, never by time (bench/cold_start.py times it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = [
    "ml_dtypes",
    "onnx_light.onnx.helper",
    "onnx_light.onnx.numpy_helper",
    "onnx_light.onnx.external_data",
    "importlib.abc",
    "onnx",
    "onnxruntime",
]


def loaded_after(code: str) -> list[str]:
    script = f"import sys\n{code}\nprint(__import__('json').dumps(sorted(sys.modules)))"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    return [m for m in HEAVY if m in modules]


def test_import_loads_nothing_heavy():
    assert loaded_after("import onnx_light") == []


def test_the_ort_drop_in_loads_when_first_used():
    code = "import onnx_light"
    script = code + "\nassert 'onnx_light.ort_compat' not in sys.modules"
    script += "\nonnx_light.InferenceSession\nassert 'onnx_light.ort_compat' in sys.modules"
    assert loaded_after(script) == []


def test_a_float_model_runs_without_them():
    code = (
        "import numpy as np, onnx_light\n"
        f"s = onnx_light.InferenceSession({str(REPO / 'models' / 'default.onnx')!r})\n"
        "s.run(None, {'x': np.ones((2, 4), np.float32)})"
    )
    assert loaded_after(code) == []


def test_they_come_when_used():
    # The lazy names still resolve: onnx_light.onnx.helper, a bfloat16 dtype.
    code = (
        "import onnx_light.onnx as o\n"
        "o.helper.make_tensor_type_proto(16, [1])\n"
        "o._mapping.TENSOR_TYPE_MAP[16].np_dtype\n"
        "o.convert_model_to_external_data"
    )
    assert loaded_after(code) == [
        "ml_dtypes",
        "onnx_light.onnx.helper",
        "onnx_light.onnx.numpy_helper",
        "onnx_light.onnx.external_data",
    ]
