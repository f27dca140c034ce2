"""fuse_layer_norm (src/onnx_light/runtime/passes/pass_fuse_layer_norm.cc): the layer-norm and
RMS-norm patterns exporters write into onnx_light:LayerNormalization / RMSNormalization,
against level "none"; and what must not fuse."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import ONLY_THIS_PASS, scalar

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


RNG = np.random.default_rng(11)


def layer_norm_model(
    *, square="Pow", affine=2, opset=13, axes=(-1,), keepdims=1, extra_output=None, eps_input=False
):
    """The decomposed layer normalization over the last axis of x [2, 5, 16]."""
    d = 16
    inits = [
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "gamma"),
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "beta"),
        scalar("two", 2.0),
    ]
    inputs = [helper.make_tensor_value_info("x", F, [2, 5, d])]
    if eps_input:
        inputs.append(helper.make_tensor_value_info("eps", F, []))
    else:
        inits.append(scalar("eps", 1e-5))

    def reduce(src, dst):
        if opset >= 18:
            if "axes" not in [i.name for i in inits]:
                inits.append(numpy_helper.from_array(np.array(axes, np.int64), "axes"))
            return helper.make_node("ReduceMean", [src, "axes"], [dst], keepdims=keepdims)
        return helper.make_node("ReduceMean", [src], [dst], axes=list(axes), keepdims=keepdims)

    nodes = [reduce("x", "mu"), helper.make_node("Sub", ["x", "mu"], ["d"])]
    if square == "Pow":
        nodes.append(helper.make_node("Pow", ["d", "two"], ["sq"]))
    else:
        nodes.append(helper.make_node("Mul", ["d", "d"], ["sq"]))
    nodes += [
        reduce("sq", "var"),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["d", "sd"], ["n"]),
    ]
    out = "n"
    if affine >= 1:
        nodes.append(helper.make_node("Mul", ["n", "gamma"], ["g"]))
        out = "g"
    if affine >= 2:
        nodes.append(helper.make_node("Add", ["g", "beta"], ["b"]))
        out = "b"
    nodes.append(helper.make_node("Relu", [out], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(nodes, "ln", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def rms_model(form, *, gamma=True, square="Pow", extra_output=None):
    """RMS normalization over the last axis of x [3, 7, 32], as T5 (1 / sqrt then Mul),
    LLaMA-style exports (Reciprocal) or a plain Div write it."""
    d = 32
    inits = [
        numpy_helper.from_array(RNG.standard_normal(d).astype(np.float32), "gamma"),
        scalar("two", 2.0),
        scalar("one", 1.0),
        scalar("eps", 1e-6),
    ]
    sq = (
        helper.make_node("Pow", ["x", "two"], ["sq"])
        if square == "Pow"
        else helper.make_node("Mul", ["x", "x"], ["sq"])
    )
    nodes = [
        sq,
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1], keepdims=1),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
    ]
    if form == "div":
        nodes.append(helper.make_node("Div", ["x", "sd"], ["n"]))
    else:
        inv = (
            helper.make_node("Div", ["one", "sd"], ["r"])
            if form == "one_over"
            else helper.make_node("Reciprocal", ["sd"], ["r"])
        )
        nodes += [inv, helper.make_node("Mul", ["x", "r"], ["n"])]
    out = "n"
    if gamma:
        nodes.append(helper.make_node("Mul", ["gamma", "n"], ["g"]))
        out = "g"
    nodes.append(helper.make_node("Relu", [out], ["y"]))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_output:
        outputs.append(helper.make_tensor_value_info(extra_output, F, None))
    graph = helper.make_graph(
        nodes, "rms", [helper.make_tensor_value_info("x", F, [3, 7, d])], outputs, inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("square", ["Pow", "Mul"])
@pytest.mark.parametrize("affine", [0, 1, 2])
@pytest.mark.parametrize("opset", [13, 18])
def test_layer_norm_pattern_fuses(square, affine, opset, tmp_path):
    model = layer_norm_model(square=square, affine=affine, opset=opset)
    x = (RNG.standard_normal((2, 5, 16)) * 3 + 1).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    path = tmp_path / "ln.onnx"
    opt = onnx_light.RuntimeSession(model, optimized_model_path=path)
    assert none.planned_nodes - opt.planned_nodes == 6 + affine
    want = none.run(None, {"x": x})[0]
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # The written graph has the fused node and loads back with the same results.
    written = onnx_light.onnx.load(str(path))
    assert [n.op_type for n in written.graph.node] == ["LayerNormalization", "Relu"]
    again = onnx_light.RuntimeSession(path).run(None, {"x": x})[0]
    np.testing.assert_array_equal(again, got)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"axes": (2,)},  # a positive axis: the rank is not known to the pass
        {"axes": (1, 2)},
        {"keepdims": 0},
        {"extra_output": "d"},  # d is read outside the pattern
        {"extra_output": "var"},
        {"eps_input": True},  # epsilon is not a constant
    ],
)
def test_layer_norm_pattern_not_fused(kwargs):
    model = layer_norm_model(**kwargs)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    if kwargs == {"extra_output": "d"}:
        # No LayerNormalization (d = x - mean is read outside), but what follows d is an
        # RMS normalization of d (times gamma): those 6 nodes become one.
        assert none.planned_nodes - opt.planned_nodes == 5
    else:
        assert opt.planned_nodes == none.planned_nodes
    if kwargs.get("keepdims") == 0:
        return  # the model cannot run (x - mean does not broadcast)
    feeds = {"x": RNG.standard_normal((2, 5, 16)).astype(np.float32)}
    if kwargs.get("eps_input"):
        feeds["eps"] = np.array(1e-5, np.float32)
    for g, w in zip(opt.run(None, feeds), none.run(None, feeds)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", ["one_over", "reciprocal", "div"])
@pytest.mark.parametrize("gamma", [True, False])
@pytest.mark.parametrize("square", ["Pow", "Mul"])
def test_rms_norm_pattern_fuses(form, gamma, square, tmp_path):
    model = rms_model(form, gamma=gamma, square=square)
    x = RNG.standard_normal((3, 7, 32)).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert opt.planned_nodes == 2  # RMSNormalization, Relu
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_allclose(got, none.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)
    # numpy, in float64
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64**2).mean(axis=-1, keepdims=True) + 1e-6)
    if gamma:
        want = want * numpy_helper.to_array(model.graph.initializer[0])
    np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-6)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["RMSNormalization", "Relu"]
    again = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, {"x": x})[0]
    np.testing.assert_array_equal(again, got)


@pytest.mark.parametrize("extra", ["sq", "sd", "n"])
def test_rms_norm_pattern_not_fused_when_a_value_is_read_outside(extra):
    model = rms_model("one_over", extra_output=extra)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    if extra == "n":  # the normalized value is an output: fused up to it, gamma stays
        assert none.planned_nodes - opt.planned_nodes == 5
    else:
        assert opt.planned_nodes == none.planned_nodes
    x = RNG.standard_normal((3, 7, 32)).astype(np.float32)
    for g, w in zip(opt.run(None, {"x": x}), none.run(None, {"x": x})):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_layer_and_rms_norm_rows_split_between_threads(threads):
    # 3000 rows (more than two chunks of 16k values): chunks of rows on two threads give
    # the one-thread values exactly.
    for model in (layer_norm_model(), rms_model("one_over")):
        d = model.graph.input[0].type.tensor_type.shape.dim[-1].dim_value
        x = RNG.standard_normal((3, 1000, d)).astype(np.float32)
        model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 3
        model.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 1000
        one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
        got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
        np.testing.assert_array_equal(got, one)
