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
