"""com.microsoft QLinearGlobalAveragePool
(src/onnx_light/kernels/com_microsoft/qlinear_global_average_pool.cc): NCHW and NHWC
(channels_last), 1-D to 3-D spatial, uint8 and int8; exact against the int32 sum requantized
in float32 as written out in numpy, and within one code of ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ms_model
from _qops import F32, check_codes, codes, elem, requantize, zero_point


def case(dtype, shape, channels_last, xq=(0.07, 9), yq=(0.05, -4)):
    x = codes(np.random.default_rng(63), dtype, *shape)
    inits = {
        "xs": np.array(xq[0], F32),
        "xz": zero_point(xq[1], dtype),
        "ys": np.array(yq[0], F32),
        "yz": zero_point(yq[1], dtype),
    }
    ins = [("x", elem(dtype)), ("xs", None), ("xz", None), ("ys", None), ("yz", None)]
    model = ms_model(
        "QLinearGlobalAveragePool",
        ins,
        [("y", elem(dtype))],
        inits,
        channels_last=int(channels_last),
    )
    axes = tuple(range(1, x.ndim - 1)) if channels_last else tuple(range(2, x.ndim))
    s = int(np.prod([shape[a] for a in axes]))
    acc = x.astype(np.int32).sum(axis=axes, keepdims=True) - s * int(inits["xz"])
    scale = F32(xq[0]) / (F32(yq[0]) * F32(s))
    want = requantize(acc.astype(F32) * scale, int(inits["yz"]), dtype)
    return model, {"x": x}, want


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("shape", [(1, 3, 7), (2, 4, 5, 6), (1, 8, 7, 7), (2, 3, 2, 3, 4)])
def test_qlinear_global_average_pool_matches_the_reference_and_ort(dtype, channels_last, shape):
    model, feeds, want = case(dtype, shape, channels_last)
    check_codes(model, feeds, [want])


def test_qlinear_global_average_pool_refuses_rank_2():
    model, _, _ = case(np.uint8, (2, 3, 4), False)
    with pytest.raises(ValueError, match="QLinearGlobalAveragePool.*rank >= 3"):
        light_run(model, {"x": np.zeros((2, 3), np.uint8)})
