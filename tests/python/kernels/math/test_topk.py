"""TopK (src/onnx_light/kernels/math/topk.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import helper


def test_topk_against_numpy():
    v = np.array([[3, 1, 3, 2], [0, 5, 5, -1]], np.float32)
    node = helper.make_node("TopK", ["a", "k"], ["y", "i"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("a", F, None), helper.make_tensor_value_info("k", I, None)],
        [helper.make_tensor_value_info("y", F, None), helper.make_tensor_value_info("i", I, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    s_out = s.run(None, {"a": v, "k": np.array([3])})
    np.testing.assert_array_equal(s_out[0], [[3, 3, 2], [5, 5, 0]])
    np.testing.assert_array_equal(s_out[1], [[0, 2, 3], [1, 2, 0]])  # ties: lower index first


BAD_INPUTS = [
    (
        "TopK",
        [("a", F), ("k", I)],
        {},
        {"a": f32(2, 3), "k": np.array([4])},
        "K=4 is outside \\[0, 3\\]",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
