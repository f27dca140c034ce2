"""Writes the small models the README's first command runs, with onnx_light.onnx.helper
(no onnx package):

- models/default.onnx: y = onnx_light_cpu::Log(1 + onnx_light::LeakyRelu(x, 0.2) ** 2),
  x: float[N, 4];
- models/ort_custom_ops_leaky_relu.onnx: y = ort_custom_ops::LeakyRelu(x, alpha=0.5),
  x: float[N, 2], the one-node model for the independent ORT plugin example.

Run from the repository root: ``.venv/bin/python tools/make_default_model.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from onnx_light.onnx import TensorProto, helper, numpy_helper, save  # noqa: E402


def build():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    one = numpy_helper.from_array(np.ones((4,), np.float32), "one")
    nodes = [
        helper.make_node("LeakyRelu", ["x"], ["h"], name="leaky", domain="onnx_light", alpha=0.2),
        helper.make_node("Mul", ["h", "h"], ["sq"], name="square"),
        helper.make_node("Add", ["sq", "one"], ["t"], name="plus_one"),
        helper.make_node("Log", ["t"], ["y"], name="log", domain="onnx_light_cpu"),
    ]
    graph = helper.make_graph(nodes, "default", [x], [y], initializer=[one])
    return helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", 17),
            helper.make_opsetid("onnx_light", 1),
            helper.make_opsetid("onnx_light_cpu", 1),
        ],
        producer_name="onnx-light",
        ir_version=8,  # the lowest IR its opsets need, so older runtimes load it too
        doc_string="log(1 + leaky_relu(x, 0.2)^2): the bundled default model",
    )


def build_plugin_example():
    node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="ort_custom_ops", alpha=0.5)
    graph = helper.make_graph(
        [node],
        "ort_custom_ops_leaky_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("ort_custom_ops", 1)], ir_version=8
    )


MODELS = {"default.onnx": build, "ort_custom_ops_leaky_relu.onnx": build_plugin_example}

if __name__ == "__main__":
    for name, make in MODELS.items():
        out = REPO / "models" / name
        save(make(), str(out))
        print(f"wrote {out.relative_to(REPO)} ({out.stat().st_size} bytes)")
