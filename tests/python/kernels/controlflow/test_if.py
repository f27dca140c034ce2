"""If (src/onnx_light/kernels/controlflow/if.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F

import onnx_light
from onnx_light.onnx import helper


def test_if_branches_read_the_enclosing_graph():
    # y = If(c) then a + b else a * 2, where a and b come from the outer graph; a is
    # computed by an outer node, so the If must run after it.
    then_g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, None)],
    )
    two = helper.make_tensor("two", F, [], [2.0])
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["a", "two"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, None)],
        [two],
    )
    nodes = [
        helper.make_node("Neg", ["x"], ["a"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in (("c", B), ("x", F), ("b", F))],
        [helper.make_tensor_value_info("y", F, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    x = np.array([1.0, -2.0, 3.0], np.float32)
    b = np.array([10.0, 20.0, 30.0], np.float32)
    (y,) = s.run(None, {"c": np.array(True), "x": x, "b": b})
    np.testing.assert_array_equal(y, -x + b)
    (y,) = s.run(None, {"c": np.array(False), "x": x, "b": b})
    np.testing.assert_array_equal(y, -x * 2)
    with pytest.raises(ValueError, match="cond must be a bool tensor of one element"):
        s.run(None, {"c": np.array([True, False]), "x": x, "b": b})


def test_a_broken_branch_fails_when_the_session_is_made():
    # Both branches are built with the node: an op no kernel runs, in the branch a run may
    # never take, is refused at creation (naming the node and the graph attribute).
    good = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["a"])],
        "good",
        [],
        [helper.make_tensor_value_info("a", F, None)],
    )
    bad = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["b"])],
        "bad",
        [],
        [helper.make_tensor_value_info("b", F, None)],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="branchy", then_branch=good, else_branch=bad)],
        "g",
        [helper.make_tensor_value_info("c", B, None), helper.make_tensor_value_info("x", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(
        RuntimeError, match=r"'branchy' \(If\): graph 'else_branch' \('bad'\).*NoSuchOp"
    ):
        onnx_light.RuntimeSession(model)
