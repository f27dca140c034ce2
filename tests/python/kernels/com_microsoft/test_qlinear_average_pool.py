"""com.microsoft QLinearAveragePool
(src/onnx_light/kernels/com_microsoft/qlinear_average_pool.cc): NCHW and NHWC
(channels_last), 1-D and 2-D windows with strides, pads, count_include_pad, ceil_mode and
auto_pad, uint8 and int8; exact against ORT's float arithmetic written out in numpy, and
within one code of ONNX Runtime."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _ms import light_run, ms_model
from _qops import F32, check_codes, codes, elem, zero_point


def reference(x, xq, yq, kernel, strides, pads, include_pad, out_shape, dtype):
    """x NCHW-style [N, C, spatial...]; pads [begin..., end...]."""
    n = len(kernel)
    zx, zy = int(zero_point(xq[1], dtype)), int(zero_point(yq[1], dtype))
    y = np.zeros(x.shape[:2] + tuple(out_shape), dtype)
    info = np.iinfo(dtype)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(s) for s in out_shape]):
            start = [o[i] * strides[i] - pads[i] for i in range(n)]
            total, inside = F32(0), 0
            for t in itertools.product(*[range(k) for k in kernel]):
                p = [start[i] + t[i] for i in range(n)]
                if all(0 <= p[i] < x.shape[2 + i] for i in range(n)):
                    total = F32(total + F32(xq[0]) * F32(int(x[(b, c) + tuple(p)]) - zx))
                    inside += 1
            avg = F32(total / F32(np.prod(kernel) if include_pad else inside))
            q = np.rint(F32(avg / F32(yq[0]) + F32(zy)))
            y[(b, c) + o] = np.clip(q, info.min, info.max)
    return y


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize(
    "shape,attrs,pads,out",
    [
        ((1, 3, 8, 8), dict(kernel_shape=[2, 2], strides=[2, 2]), [0, 0, 0, 0], [4, 4]),
        ((2, 4, 7, 6), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), [1, 1, 1, 1], [7, 6]),
        (
            (2, 4, 7, 6),
            dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
            [1, 1, 1, 1],
            [7, 6],
        ),
        (
            (1, 2, 7, 7),
            dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
            [0, 0, 0, 0],
            [3, 3],
        ),
        ((1, 3, 10), dict(kernel_shape=[4], strides=[3], pads=[2, 1]), [2, 1], [4]),
        # Rows wide enough for the vector kernel (interiors of 39 and 35 outputs: whole
        # vectors, an overlapping last one, scalar ends), stride 2 along H, asymmetric pads.
        ((1, 3, 9, 41), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]), [1, 1, 1, 1], [9, 41]),
        (
            (1, 2, 9, 41),
            dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
            [1, 1, 1, 1],
            [9, 41],
        ),
        (
            (2, 2, 11, 37),
            dict(kernel_shape=[2, 5], strides=[2, 1], pads=[0, 2, 1, 2]),
            [0, 2, 1, 2],
            [6, 37],
        ),
    ],
)
def test_qlinear_average_pool(dtype, channels_last, shape, attrs, pads, out):
    x = codes(np.random.default_rng(95), dtype, *shape)
    xq, yq = (0.05, 7), (0.03, -2)
    inits = {
        "xs": np.array(xq[0], F32),
        "xz": zero_point(xq[1], dtype),
        "ys": np.array(yq[0], F32),
        "yz": zero_point(yq[1], dtype),
    }
    ins = [("x", elem(dtype)), ("xs", None), ("xz", None), ("ys", None), ("yz", None)]
    model = ms_model(
        "QLinearAveragePool",
        ins,
        [("y", elem(dtype))],
        inits,
        channels_last=int(channels_last),
        **attrs,
    )
    kernel = attrs["kernel_shape"]
    strides = attrs.get("strides", [1] * len(kernel))
    want = reference(
        x, xq, yq, kernel, strides, pads, attrs.get("count_include_pad", 0), out, dtype
    )
    feed = x
    if channels_last:
        feed = np.ascontiguousarray(np.moveaxis(x, 1, -1))
        want = np.moveaxis(want, 1, -1)
    check_codes(model, {"x": feed}, [want])


def test_qlinear_average_pool_refuses_a_window_larger_than_the_input():
    inits = {"xs": np.array(0.1, F32), "ys": np.array(0.1, F32)}
    ins = [("x", elem(np.uint8)), ("xs", None), ("", None), ("ys", None)]
    model = ms_model("QLinearAveragePool", ins, [("y", elem(np.uint8))], inits, kernel_shape=[5, 5])
    with pytest.raises(ValueError, match="QLinearAveragePool.*larger than the padded input"):
        light_run(model, {"x": np.zeros((1, 1, 3, 3), np.uint8)})
