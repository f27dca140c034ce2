"""com.microsoft NhwcMaxPool (src/onnx_light/kernels/com_microsoft/nhwc_max_pool.cc): 8-bit
MaxPool on [N, spatial..., C] with kernels, strides, dilations, pads, auto_pad and
ceil_mode; exact against ai.onnx MaxPool on the transposed input and against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ms_model, ort_run
from _qops import codes, elem


def nchw_max_pool(x, **attrs):
    """ai.onnx MaxPool (onnx-light's) of the NCHW form, as the reference."""
    perm = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
    m = ms_model("MaxPool", [("x", elem(x.dtype))], [("y", elem(x.dtype))], domain="", **attrs)
    (y,) = light_run(m, {"x": np.ascontiguousarray(x.transpose(perm))})
    back = (0,) + tuple(range(2, x.ndim)) + (1,)
    return y.transpose(back)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize(
    "shape,attrs",
    [
        ((1, 8, 8, 3), dict(kernel_shape=[2, 2], strides=[2, 2])),
        ((2, 7, 9, 5), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
        ((1, 9, 9, 4), dict(kernel_shape=[3, 2], strides=[2, 1], dilations=[2, 1])),
        ((1, 6, 7, 2), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ((1, 5, 5, 3), dict(kernel_shape=[2, 2], auto_pad="SAME_UPPER")),
        ((2, 10, 16), dict(kernel_shape=[3], strides=[2])),
        # 64-channel blocks held across the taps, and the channels past them one by one
        ((1, 9, 9, 64), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
        ((1, 6, 5, 130), dict(kernel_shape=[2, 3], pads=[0, 1, 1, 0])),
    ],
)
def test_nhwc_max_pool_matches_maxpool_and_ort(dtype, shape, attrs):
    x = codes(np.random.default_rng(70), dtype, *shape)
    model = ms_model("NhwcMaxPool", [("x", elem(dtype))], [("y", elem(dtype))], **attrs)
    (got,) = light_run(model, {"x": x})
    np.testing.assert_array_equal(got, nchw_max_pool(x, **attrs))
    np.testing.assert_array_equal(ort_run(model, {"x": x})[0], got)


def test_nhwc_max_pool_refuses_a_window_larger_than_the_input():
    model = ms_model(
        "NhwcMaxPool", [("x", elem(np.uint8))], [("y", elem(np.uint8))], kernel_shape=[5, 5]
    )
    with pytest.raises(ValueError, match="NhwcMaxPool.*larger than the padded input"):
        light_run(model, {"x": np.zeros((1, 3, 3, 2), np.uint8)})
