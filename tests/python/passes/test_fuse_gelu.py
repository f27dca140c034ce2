"""fuse_gelu (src/onnx_light/runtime/passes/pass_fuse_gelu.cc): the exact and tanh GELU patterns
into onnx_light:Gelu, against level "none"; and what must not fuse."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import ONLY_THIS_PASS, scalar

import onnx_light
from onnx_light.onnx import TensorProto, helper

F = TensorProto.FLOAT


RNG = np.random.default_rng(11)


def gelu_model(form, order, *, half=0.5, extra_output=None):
    """GELU as exporters write it: form "erf_div", "erf_mul", "tanh_pow" or "tanh_mul";
    order of 0.5 * x * (1 + e): "x_then_half", "half_first", "half_of_a"."""
    inits = [
        scalar("one", 1.0),
        scalar("half", half),
        scalar("sqrt2", 1.4142135),
        scalar("inv_sqrt2", 0.70710678),
        scalar("three", 3.0),
        scalar("c", 0.044715),
        scalar("k", 0.7978845608),
    ]
    if form == "erf_div":
        nodes = [
            helper.make_node("Div", ["x", "sqrt2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
        ]
    elif form == "erf_mul":
        nodes = [
            helper.make_node("Mul", ["x", "inv_sqrt2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
        ]
    else:
        if form == "tanh_pow":
            cube = [helper.make_node("Pow", ["x", "three"], ["x3"])]
        else:
            cube = [
                helper.make_node("Mul", ["x", "x"], ["x2"]),
                helper.make_node("Mul", ["x", "x2"], ["x3"]),
            ]
        nodes = cube + [
            helper.make_node("Mul", ["x3", "c"], ["q"]),
            helper.make_node("Add", ["x", "q"], ["s"]),
            helper.make_node("Mul", ["s", "k"], ["t"]),
            helper.make_node("Tanh", ["t"], ["e"]),
        ]
    nodes.append(helper.make_node("Add", ["e", "one"], ["a"]))
    if order == "x_then_half":
        nodes += [
            helper.make_node("Mul", ["x", "a"], ["xa"]),
            helper.make_node("Mul", ["xa", "half"], ["g"]),
        ]
    elif order == "half_first":
        nodes += [
            helper.make_node("Mul", ["x", "half"], ["xh"]),
            helper.make_node("Mul", ["xh", "a"], ["g"]),
        ]
    else:
        nodes += [
            helper.make_node("Mul", ["a", "half"], ["ah"]),
            helper.make_node("Mul", ["x", "ah"], ["g"]),
        ]
    nodes.append(helper.make_node("Neg", ["g"], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(
        nodes, "gelu", [helper.make_tensor_value_info("x", F, [4, 33])], outputs, inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("form", ["erf_div", "erf_mul", "tanh_pow", "tanh_mul"])
@pytest.mark.parametrize("order", ["x_then_half", "half_first", "half_of_a"])
def test_gelu_patterns_fuse(form, order, tmp_path):
    model = gelu_model(form, order)
    x = (RNG.standard_normal((4, 33)) * 3).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert opt.planned_nodes == 2  # Gelu, Neg
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, none.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)
    x64 = x.astype(np.float64)
    if form.startswith("erf"):
        from math import erf

        want = 0.5 * x64 * (1 + np.vectorize(erf)(x64 / np.sqrt(2)))
    else:
        want = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64**3)))
    np.testing.assert_allclose(got, -want, rtol=1e-5, atol=1e-6)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["Gelu", "Neg"]


@pytest.mark.parametrize(
    "kwargs", [{"half": 0.6}, {"extra_output": "a"}, {"extra_output": "e"}, {"extra_output": "t"}]
)
def test_gelu_pattern_not_fused(kwargs):
    model = gelu_model("tanh_pow", "half_first", **kwargs)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    assert opt.planned_nodes == none.planned_nodes


@pytest.mark.parametrize("threads", [1, 2])
def test_gelu_split_between_threads_equals_one_thread(threads):
    model = gelu_model("tanh_pow", "half_first")
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1000
    x = (RNG.standard_normal((1000, 33)) * 3).astype(np.float32)
    one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, one)
