"""eliminate_identities (src/onnx_light/runtime/passes/pass_eliminate_identities.cc)."""

from __future__ import annotations

import numpy as np

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def test_identity_feeding_a_graph_output_or_a_subgraph_stays():
    then_g = helper.make_graph(
        [helper.make_node("Neg", ["i"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, None)],
    )
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["i"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, None)],
    )
    nodes = [
        helper.make_node("Identity", ["x"], ["i"]),
        helper.make_node("Identity", ["x"], ["out2"]),
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [3])],
        [
            helper.make_tensor_value_info("y", F, None),
            helper.make_tensor_value_info("out2", F, [3]),
        ],
        [numpy_helper.from_array(np.array(0, np.float32), "zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    s = onnx_light.RuntimeSession(model)
    assert s.removed_nodes == 0
    x = np.array([1.0, -2.0, 4.0], np.float32)
    y, out2 = s.run(None, {"x": x})
    np.testing.assert_array_equal(y, -x)
    np.testing.assert_array_equal(out2, x)
