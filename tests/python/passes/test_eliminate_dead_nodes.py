"""eliminate_dead_nodes (src/onnx_light/runtime/passes/pass_eliminate_dead_nodes.cc): nodes no
graph output depends on are removed (a node a subgraph reads is not dead), and what runs
computes the same outputs."""

from __future__ import annotations

import numpy as np
from _graphs import LEVELS_X, F, levels_model

import onnx_light
from onnx_light.onnx import helper

ONLY = {"disabled_passes": ["constant_folding", "eliminate_identities"]}


def test_a_dead_branch_goes():
    model = levels_model()  # Exp(x) is read by nothing
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    s = onnx_light.RuntimeSession(model, graph_optimization_level="basic", **ONLY)
    assert none.planned_nodes - s.planned_nodes == 1
    assert s.removed_nodes == 1
    for got, want in zip(s.run(None, {"x": LEVELS_X}), none.run(None, {"x": LEVELS_X})):
        np.testing.assert_array_equal(got, want)


def test_a_chain_that_feeds_only_a_subgraph_stays():
    # t = Neg(x) is read only inside the If's branches: the If depends on it.
    branch = helper.make_graph(
        [helper.make_node("Abs", ["t"], ["o"])],
        "b",
        [],
        [helper.make_tensor_value_info("o", F, None)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Neg", ["x"], ["t"]),
            helper.make_node("Exp", ["x"], ["unused"]),
            helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", F, None),
            helper.make_tensor_value_info("c", 9, None),
        ],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    s = onnx_light.RuntimeSession(model, graph_optimization_level="basic", **ONLY)
    assert s.planned_nodes == 2 and s.removed_nodes == 1  # the Exp went, Neg and If stay
    (y,) = s.run(None, {"x": np.array([-2.0, 3.0], np.float32), "c": np.array(True)})
    np.testing.assert_array_equal(y, [2.0, 3.0])
