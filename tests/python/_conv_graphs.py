"""Conv models for the fusion tests (fuse_conv_activation, fold_batch_norm_into_conv and the
FusedConv kernel): x -> Conv -> a tail of nodes, and the check that a fused session plans
fewer nodes and computes what the unfused one does (float32 at rtol 1e-5, atol 1e-5: fused
weights and SIMD activations round differently)."""

from __future__ import annotations

import numpy as np
from _graphs import F

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

# The element-wise chain fusion would merge the nodes these tests count: off here (it has
# its own tests, test_fuse_elementwise_chain.py).
ONLY_THIS_PASS = {"disabled_passes": ["fuse_elementwise_chain"]}
RNG = np.random.default_rng(11)


def conv_model(
    tail,
    *,
    opset=17,
    w_shape=(6, 3, 3, 3),
    x_shape=(2, 3, 9, 11),
    conv_attrs=None,
    extra_inits=(),
    outputs=("y",),
    bias=True,
    dtype=np.float32,
):
    """x -> Conv(W, B) -> c, then the `tail` nodes; W, B and extra_inits are initializers."""
    elem = F if dtype == np.float32 else TensorProto.DOUBLE
    w = numpy_helper.from_array((RNG.standard_normal(w_shape) * 0.3).astype(dtype), "W")
    inits = [w, *extra_inits]
    ins = ["x", "W"]
    if bias:
        inits.append(numpy_helper.from_array(RNG.standard_normal(w_shape[0]).astype(dtype), "B"))
        ins.append("B")
    conv = helper.make_node("Conv", ins, ["c"], name="conv", **(conv_attrs or {"pads": [1] * 4}))
    graph = helper.make_graph(
        [conv, *tail],
        "g",
        [helper.make_tensor_value_info("x", elem, list(x_shape))],
        [helper.make_tensor_value_info(o, elem, None) for o in outputs],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def scalar(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def check(model, *, fused_away, x_shape=(2, 3, 9, 11), tmp_path=None):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    kw = {"optimized_model_path": tmp_path / "o.onnx"} if tmp_path else {}
    opt = onnx_light.RuntimeSession(model, **kw, **ONLY_THIS_PASS)
    assert none.planned_nodes - opt.planned_nodes == fused_away
    want = none.run(None, {"x": x})
    got = opt.run(None, {"x": x})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    if tmp_path:
        back = onnx_light.RuntimeSession(tmp_path / "o.onnx", graph_optimization_level="none")
        assert back.planned_nodes == opt.planned_nodes
        for g, b in zip(got, back.run(None, {"x": x})):
            np.testing.assert_array_equal(b, g)
    return opt
