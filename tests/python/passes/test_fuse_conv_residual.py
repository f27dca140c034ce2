"""fuse_conv_residual (src/onnx_light/runtime/passes/pass_fuse_conv_residual.cc): Conv + Add
(+ activation) into onnx_light:FusedConv with Z, against level "none"; and what must not fuse."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import ONLY_THIS_PASS

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


RNG = np.random.default_rng(11)


def residual_model(*, activation="Relu", z_after=False, conv_read_twice=False, z_shape=None):
    """x -> Conv -> Add(., z) [-> activation]; z = Sigmoid(x2), computed before the Conv or
    after it (a branch that comes later in the node order)."""
    w = numpy_helper.from_array((RNG.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "W")
    b = numpy_helper.from_array(RNG.standard_normal(4).astype(np.float32), "B")
    zn = helper.make_node("Sigmoid", ["x2"], ["z"])
    conv = helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1])
    nodes = [conv, zn] if z_after else [zn, conv]
    nodes.append(helper.make_node("Add", ["c", "z"], ["s"]))
    out = "s"
    if activation:
        nodes.append(helper.make_node(activation, ["s"], ["y"]))
        out = "y"
    outputs = [helper.make_tensor_value_info(out, F, None)]
    if conv_read_twice:
        outputs.append(helper.make_tensor_value_info("c", F, None))
    graph = helper.make_graph(
        nodes,
        "res",
        [
            helper.make_tensor_value_info("x", F, [2, 3, 6, 7]),
            helper.make_tensor_value_info("x2", F, list(z_shape or [2, 4, 6, 7])),
        ],
        outputs,
        [w, b],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("activation", ["Relu", "LeakyRelu", None])
@pytest.mark.parametrize("z_after", [False, True])
@pytest.mark.parametrize("z_shape", [None, (1, 4, 1, 1), (3, 2, 4, 6, 7)])
def test_conv_residual_add_fuses(activation, z_after, z_shape, tmp_path):
    model = residual_model(activation=activation, z_after=z_after, z_shape=z_shape)
    feeds = {
        "x": RNG.standard_normal((2, 3, 6, 7)).astype(np.float32),
        "x2": RNG.standard_normal(z_shape or (2, 4, 6, 7)).astype(np.float32),
    }
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert none.planned_nodes - opt.planned_nodes == (2 if activation else 1)
    want = none.run(None, feeds)[0]
    got = opt.run(None, feeds)[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    written = onnx_light.onnx.load(str(tmp_path / "o.onnx"))
    assert [n.op_type for n in written.graph.node] == ["Sigmoid", "FusedConv"]
    again = onnx_light.RuntimeSession(tmp_path / "o.onnx").run(None, feeds)[0]
    np.testing.assert_array_equal(again, got)


def test_conv_residual_not_fused_when_the_conv_output_is_read_elsewhere():
    model = residual_model(conv_read_twice=True)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    assert opt.planned_nodes == none.planned_nodes
