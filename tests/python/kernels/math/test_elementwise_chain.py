"""onnx_light:ElementwiseChain (src/onnx_light/kernels/math/elementwise_chain.cc) loaded from a
model file, and its attribute errors."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

F = TensorProto.FLOAT


def chain_node(ops, operands, first, n_inputs=2):
    names = ["x", "b", "c"][:n_inputs]
    node = helper.make_node(
        "ElementwiseChain",
        names,
        ["y"],
        domain="onnx_light",
        ops=ops,
        operands=operands,
        value_first=first,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, [4]) for n in names],
        [helper.make_tensor_value_info("y", F, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onnx_light", 1)]
    )


def test_the_node_from_a_file():
    x = np.array([1, -2, 3, -4], np.float32)
    b = np.array([0.5, 0.25, 2, 4], np.float32)
    s = onnx_light.RuntimeSession(chain_node(["Sub", "Relu", "Mul"], [1, -1, 1], [0, 1, 1]))
    np.testing.assert_array_equal(s.run(None, {"x": x, "b": b})[0], np.maximum(b - x, 0) * b)


@pytest.mark.parametrize(
    "ops,operands,first,message",
    [
        (["Mul", "Add"], [1], [1, 1], "of one length"),
        (["Mul", "Add"], [1, 1], [1], "of one length"),
        (["Pow"], [1], [1], "unknown op 'Pow'"),
        (["Mul"], [-1], [1], "must name an input from 1 on"),
        (["Tanh"], [1], [1], "must be -1 for a unary op"),
        (["Mul"], [1], [2], "value_first must be 0 or 1"),
        (["Mul"], [2], [1], "reads input 2, which is absent"),
    ],
)
def test_bad_attributes_are_clear_errors(ops, operands, first, message):
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=message):  # kernels are made at the first run
        onnx_light.RuntimeSession(chain_node(ops, operands, first)).run(None, {"x": x, "b": x})
    good = onnx_light.RuntimeSession(chain_node(["Add"], [1], [1]))
    np.testing.assert_array_equal(good.run(None, {"x": x + 1, "b": x + 2})[0], x + 3)
