"""``onnxruntime.backend`` (ONNX's backend API) through the drop-in, side by side with ORT's
own (the oracle in .venv): prepare() from a path, bytes, an onnx ModelProto, a session and a
prepared rep; run() with a list of inputs and with a single array; run_model(); the allowed
and the blocked session and run options (ORT's RuntimeError and words), unknown keys
ignored; supports_device / is_compatible; a device the build lacks refused as ORT refuses
it. The drop-in side runs in a subprocess with install() first, answers as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROGRAM = r"""
import json, sys
import numpy as np
import onnx
from onnx import TensorProto, helper
import onnxruntime
import onnxruntime.backend as backend
from onnxruntime.backend.backend_rep import OnnxRuntimeBackendRep

path = sys.argv[1]
x = np.arange(6, dtype=np.float32).reshape(2, 3)
out = {}
def outcome(fn):
    try:
        return [np.asarray(v).tolist() for v in fn()]
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
out["path, list"] = outcome(lambda: backend.prepare(path).run([x, x]))
data = open(path, "rb").read()
out["bytes, run_model"] = outcome(lambda: backend.run(data, [x, 2 * x]))
proto = onnx.load(path)
out["onnx ModelProto"] = outcome(lambda: backend.prepare(proto).run([x, x]))
rep = backend.prepare(path, graph_optimization_level=onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL,
                      intra_op_num_threads=1, no_such_key=3)
out["rep again"] = outcome(lambda: backend.prepare(rep).run([x, x], logid="t"))
out["is rep"] = isinstance(rep, OnnxRuntimeBackendRep)
sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
out["session"] = outcome(lambda: backend.prepare(sess).run([x, x]))
out["blocked session option"] = outcome(lambda: backend.prepare(path, optimized_model_filepath="o.onnx").run([x, x]))
out["blocked run option"] = outcome(lambda: backend.prepare(path).run([x, x], terminate=True))
out["single input on two"] = outcome(lambda: backend.prepare(path).run(x))
out["devices"] = [backend.supports_device(d) for d in ("CPU", "CUDA", "GPU", "DML")]
out["is_compatible"] = backend.is_compatible(proto, "CPU")
out["wrong device"] = outcome(lambda: backend.prepare(path, device="CUDA").run([x, x]))
g = helper.make_graph([helper.make_node("Relu", ["a"], ["r"])], "g",
    [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])])
one = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
out["single input"] = outcome(lambda: backend.prepare(one.SerializeToString()).run(x - 2))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    from onnx_light.onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Mul", ["a", "b"], ["m"]), helper.make_node("Add", ["m", "a"], ["y"])],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
    )
    path = tmp_path_factory.mktemp("backend") / "mul_add.onnx"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path.write_bytes(model.SerializeToString())
    return path


def answers(model: Path, light: bool) -> dict:
    prelude = (
        f"import sys; sys.path.insert(0, {str(REPO / 'python')!r})\n"
        "import onnx_light.ort_compat as c; c.install()\n"
        if light
        else ""
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + PROGRAM, str(model)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_the_backend_api_answers_as_orts(model):
    ours, theirs = answers(model, True), answers(model, False)
    assert set(ours) == set(theirs)
    assert {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]} == {}
    assert ours["path, list"] == [[[0.0, 2.0, 6.0], [12.0, 20.0, 30.0]]]
    assert ours["blocked session option"].startswith("RuntimeError: SessionOptions attribute")
