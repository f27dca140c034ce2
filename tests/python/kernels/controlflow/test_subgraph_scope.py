"""If/Loop/Scan subgraphs see the enclosing model's opset imports and the session's kernel
registry: a branch can use the custom-domain kernels the model imports (here onnx-light's
own onnx_light::LeakyRelu and onnx_light_cpu::Log), nested two levels deep."""

from __future__ import annotations

import numpy as np
from _graphs import B, F

import onnx_light
from onnx_light.onnx import helper


def branch(name, nodes, out):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, F, None)])


def test_custom_domain_kernels_inside_nested_branches():
    inner_then = branch(
        "inner_then", [helper.make_node("Log", ["x"], ["l"], domain="onnx_light_cpu")], "l"
    )
    inner_else = branch("inner_else", [helper.make_node("Neg", ["x"], ["n"])], "n")
    outer_then = branch(
        "outer_then",
        [
            helper.make_node("LeakyRelu", ["x"], ["lr"], domain="onnx_light", alpha=0.5),
            helper.make_node(
                "If", ["c2"], ["inner"], then_branch=inner_then, else_branch=inner_else
            ),
            helper.make_node("Add", ["lr", "inner"], ["o"]),
        ],
        "o",
    )
    outer_else = branch("outer_else", [helper.make_node("Identity", ["x"], ["e"])], "e")
    graph = helper.make_graph(
        [helper.make_node("If", ["c1"], ["y"], then_branch=outer_then, else_branch=outer_else)],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in (("c1", B), ("c2", B), ("x", F))],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", 17),
            helper.make_opsetid("onnx_light", 1),
            helper.make_opsetid("onnx_light_cpu", 1),
        ],
    )
    s = onnx_light.RuntimeSession(model)
    x = np.array([0.5, 2.0, 4.0], np.float32)
    lr = np.where(x < 0, 0.5 * x, x)
    for c1, c2, want in (
        (True, True, lr + np.log(x)),
        (True, False, lr - x),
        (False, True, x),
    ):
        (y,) = s.run(None, {"c1": np.array(c1), "c2": np.array(c2), "x": x})
        np.testing.assert_allclose(y, want, rtol=1e-6)
