"""Dynamic quantization's MatMulInteger -> Cast -> Mul(scale) tail fused into
onnx_light:MatMulIntegerToFloat (extended level), and constant int8 weights packed once
per session. The fused node computes float(int32 product) * scale as the three nodes do:
outputs are compared bit for bit with the same model at level "none", and with the
products computed in numpy (exact integers). What must not fuse keeps its nodes."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT

# The element-wise chain fusion would merge the nodes these tests count: off here (it has
# its own tests, test_fuse_elementwise_chain.py).
ONLY_THIS_PASS = {"disabled_passes": ["fuse_elementwise_chain"]}
RNG = np.random.default_rng(23)


def quantized_model(k, n, *, scale_shape=(), weight_input=False, extra_reader=False):
    """x -> DynamicQuantizeLinear -> MatMulInteger(W int8) -> Cast -> Mul(x_scale * w_scale)."""
    w = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    w_scale = (RNG.random(scale_shape) * 0.02 + 0.001).astype(np.float32)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("Mul", ["xs", "ws"], ["s"]),
        helper.make_node("MatMulInteger", ["xq", "W", "xz"], ["p"]),
        helper.make_node("Cast", ["p"], ["f"], to=F),
        helper.make_node("Mul", ["f", "s"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.asarray(w_scale), "ws")]
    inputs = [helper.make_tensor_value_info("x", F, ["m", k])]
    if weight_input:
        inputs.append(helper.make_tensor_value_info("W", TensorProto.INT8, [k, n]))
    else:
        inits.append(numpy_helper.from_array(w, "W"))
    outputs = [helper.make_tensor_value_info("y", F, None)]
    if extra_reader:
        outputs.append(helper.make_tensor_value_info("p", TensorProto.INT32, None))
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), w, w_scale


def reference(x, w, w_scale):
    """numpy DynamicQuantizeLinear, exact integer product, then the float scaling."""
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    xs = np.float32((hi - lo) / 255)
    xz = np.clip(np.rint(np.float32(-lo) / xs), 0, 255).astype(np.int64)
    xq = np.clip(np.rint(x / xs) + xz, 0, 255).astype(np.int64)
    p = (xq - xz) @ w.astype(np.int64)
    return p.astype(np.float32) * (xs * w_scale)


@pytest.mark.parametrize("m,k,n", [(1, 16, 8), (7, 64, 40), (64, 96, 130), (3, 33, 64)])
@pytest.mark.parametrize("scale_shape", [(), (1,), "n"])
def test_fused_equals_unfused_and_numpy(m, k, n, scale_shape, tmp_path):
    shape = (n,) if scale_shape == "n" else scale_shape
    model, w, w_scale = quantized_model(k, n, scale_shape=shape)
    x = RNG.standard_normal((m, k)).astype(np.float32)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, optimized_model_path=tmp_path / "o.onnx")
    assert none.planned_nodes - opt.planned_nodes == 2
    want = none.run(None, {"x": x})[0]
    got = opt.run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, reference(x, w, w_scale), rtol=1e-6, atol=1e-6)
    back = onnx_light.RuntimeSession(tmp_path / "o.onnx", graph_optimization_level="none")
    np.testing.assert_array_equal(back.run(None, {"x": x})[0], got)


def test_weights_fed_at_run_time_are_not_packed_and_agree():
    # The same weights as a graph input (read at run time, never packed) and as an
    # initializer (packed once where the CPU has VNNI): the same bits.
    fed, w, _ = quantized_model(80, 48, weight_input=True)
    const, _, _ = quantized_model(80, 48)
    const.graph.initializer[1].CopyFrom(numpy_helper.from_array(w, "W"))
    fed.graph.initializer[0].CopyFrom(const.graph.initializer[0])
    x = RNG.standard_normal((9, 80)).astype(np.float32)
    a = onnx_light.RuntimeSession(fed).run(None, {"x": x, "W": w})[0]
    b = onnx_light.RuntimeSession(const).run(None, {"x": x})[0]
    np.testing.assert_array_equal(a, b)
    # Packed weights serve runs on several threads and shapes alike.
    s = onnx_light.RuntimeSession(const, intra_op_threads=2)
    for m in (1, 17, 200):
        x = RNG.standard_normal((m, 80)).astype(np.float32)
        np.testing.assert_array_equal(
            s.run(None, {"x": x})[0], onnx_light.RuntimeSession(fed).run(None, {"x": x, "W": w})[0]
        )


@pytest.mark.parametrize("case", ["scale_rank_2", "weights_fed", "products_read", "scale_matrix"])
def test_what_must_not_fuse(case):
    kw = {
        "scale_rank_2": {"scale_shape": (1, 1)},  # Mul would raise the rank
        "weights_fed": {"weight_input": True},
        "products_read": {"extra_reader": True},
        "scale_matrix": {"scale_shape": (5, 24)},  # not one value per column
    }[case]
    model, w, _ = quantized_model(24, 24 if case != "scale_matrix" else 24, **kw)
    m = 5
    x = RNG.standard_normal((m, 24)).astype(np.float32)
    feeds = {"x": x, "W": w} if case == "weights_fed" else {"x": x}
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none")
    opt = onnx_light.RuntimeSession(model, **ONLY_THIS_PASS)
    assert opt.planned_nodes == none.planned_nodes
    for g, w_ in zip(opt.run(None, feeds), none.run(None, feeds)):
        np.testing.assert_array_equal(g, w_)


def test_bad_scale_at_run_time_is_a_clear_error():
    # A hand-written MatMulIntegerToFloat whose scale is neither one value nor one per
    # column fails with a message, and the session stays usable.
    nodes = [
        helper.make_node(
            "MatMulIntegerToFloat", ["a", "b", "", "", "s"], ["y"], domain="onnx_light"
        )
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.INT8, [3, 4]),
            helper.make_tensor_value_info("s", F, None),
        ],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("onnx_light", 1)]
    )
    s = onnx_light.RuntimeSession(model)
    a = np.arange(6, dtype=np.uint8).reshape(2, 3)
    b = np.arange(12, dtype=np.int8).reshape(3, 4)
    with pytest.raises(ValueError, match="scale"):
        s.run(None, {"a": a, "b": b, "s": np.ones(3, np.float32)})
    got = s.run(None, {"a": a, "b": b, "s": np.full(4, 0.5, np.float32)})[0]
    np.testing.assert_array_equal(got, (a.astype(np.int32) @ b.astype(np.int32)) * 0.5)
