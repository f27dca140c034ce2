"""Clip, Gelu, PRelu (src/onnx_light/kernels/math/activation.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _one_node import check_bad_input, f32, session


def test_gelu_refuses_an_unknown_approximation():
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        session("Gelu", [("a", F)], opset=20, approximate="erf").run(None, {"a": f32(2)})


BAD_INPUTS = [
    ("Clip", [("a", F), ("lo", F)], {}, {"a": f32(3), "lo": f32(2)}, "min must hold one element"),
    ("PRelu", [("a", F), ("s", F)], {}, {"a": f32(3), "s": f32(2, 3)}, "does not broadcast to X"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def _prelu_session(x_shape, slope, opset, threads):
    import onnx_light
    from onnx_light.onnx import helper, numpy_helper

    elem = helper.np_dtype_to_tensor_dtype(slope.dtype)
    graph = helper.make_graph(
        [helper.make_node("PRelu", ["x", "s"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", elem, x_shape)],
        [helper.make_tensor_value_info("y", elem, None)],
        [numpy_helper.from_array(slope, "s")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return onnx_light.RuntimeSession(model, intra_op_threads=threads)


# x shape, slope shape, opset: one slope for all, one per channel of axis 1 (planes of 100,
# 9 and 1 values: the shapes of MTCNN's P-Net), of the last axis, of a middle axis, opset
# 6's [C] slope for [N, C, ...], and slopes that vary along two axes (the general path)
PRELU_SHAPES = [
    ([300, 10, 10, 10], [1], 16),
    ([300, 10, 10, 10], [1, 10, 1, 1], 16),
    ([300, 16, 3, 3], [16, 1, 1], 16),
    ([3000, 32, 1, 1], [1, 32, 1, 1], 16),
    ([5000, 24], [24], 16),
    ([4, 7, 6, 5], [7], 6),
    ([4, 7, 6, 5], [7, 1, 1], 16),
    ([4, 7, 6, 5], [1, 6, 1], 16),
    ([4, 7, 6, 5], [7, 6, 1], 16),
    ([4, 7, 6, 5], [4, 7, 6, 5], 16),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_shape,slope_shape,opset", PRELU_SHAPES)
def test_prelu_per_channel_and_scalar_slopes_match_numpy(
    x_shape, slope_shape, opset, dtype, threads
):
    rng = np.random.default_rng(len(x_shape) * 31 + len(slope_shape))
    x = rng.standard_normal(x_shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:6] = [
        np.nan,
        -0.0,
        0.0,
        -np.inf,
        np.inf,
        -1.0,
    ]  # NaN, -0 and infinities pass as x < 0 says
    slope = rng.uniform(-1, 1, slope_shape).astype(dtype)
    view = slope
    if opset < 7 and slope.ndim == 1 and len(x_shape) >= 3:  # opset 6: [C] is per channel
        view = slope.reshape([-1] + [1] * (len(x_shape) - 2))
    want = np.where(x < 0, x * view, x)
    got = _prelu_session(x_shape, slope, opset, threads).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, want)  # one multiply: bit for bit
    assert np.signbit(got.reshape(-1)[1])  # -0 stays -0


@pytest.mark.parametrize("dtype", [np.float32])
def test_sigmoid_and_silu_flush_their_subnormal_tails_to_zero(dtype):
    # Sigmoid(x) for x below about -87.3 is under FLT_MIN: it comes out as 0 (a SiLU as a
    # zero of x's sign), within 1.2e-38 of the exact value, so that no later multiply-add
    # reads a subnormal (a ~100x slowdown on Intel cores: an EfficientNet segmenter's
    # SiLU tails). Above the cut the values are the usual ones.
    from _graphs import node_model

    import onnx_light

    x = np.array([-1e4, -200.0, -103.0, -88.0, -87.5, -87.0, -20.0, 0.0, 5.0], dtype)
    model = node_model("Sigmoid", [("x", F)], [("y", F)], opset=13)
    (y,) = onnx_light.RuntimeSession(model).run(None, {"x": x})
    with np.errstate(over="ignore"):  # exp(1e4) is inf in float64 too: 1 / inf, 0
        want = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    assert (y[:5] == 0).all()
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1.2e-38)
    assert not (np.abs(y[y != 0]) < np.finfo(np.float32).tiny).any()
    # SiLU, x * sigmoid(x), as the fused Conv epilogue computes it (FusedConv Silu on a
    # 1x1 identity convolution)
    from onnx_light.onnx import helper, numpy_helper

    w = numpy_helper.from_array(np.ones((1, 1, 1, 1), np.float32), "w")
    node = helper.make_node(
        "FusedConv", ["x", "w"], ["y"], domain="com.microsoft", activation="Silu"
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, [1, 1, 1, x.size])],
        [helper.make_tensor_value_info("y", F, None)],
        [w],
    )
    m = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    )
    (s,) = onnx_light.RuntimeSession(m).run(None, {"x": x.reshape(1, 1, 1, -1)})
    s = s.ravel()
    # (no subnormal out; far down the tail the exp's clamp at 88 leaves x * 6e-39, within
    # 1e-34 of the true 0)
    assert not (np.abs(s[s != 0]) < np.finfo(np.float32).tiny).any()
    np.testing.assert_allclose(s, x * want, rtol=1e-5, atol=1e-34)
