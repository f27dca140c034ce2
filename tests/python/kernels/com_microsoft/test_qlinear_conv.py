"""com.microsoft QLinearConv (src/onnx_light/kernels/com_microsoft/qlinear_conv.cc): with
channels_last (X and Y [N, spatial..., C], as ORT's NHWC transformer writes it) and without,
uint8 and int8 activations, groups, strides, pads, per-channel weight scales, bias; equal to
ai.onnx QLinearConv on the NCHW form and to ONNX Runtime (weights within +-63, where its
u8s8 kernels are exact on every CPU)."""

from __future__ import annotations

import numpy as np
import pytest
from _ms import light_run, ms_model, ort_run
from _qops import F32, codes, elem, zero_point

from onnx_light.onnx import TensorProto


def case(x_type, nhwc, group, per_channel, bias=True, **attrs):
    rng = np.random.default_rng(71)
    c, m = 4 * group, 6 * group
    x = codes(rng, x_type, 2, c, 9, 7)
    w = rng.integers(-63, 64, (m, c // group, 3, 3)).astype(np.int8)
    inits = {
        "xs": np.array(0.05, F32),
        "xz": zero_point(5, x_type),
        "w": w,
        "ws": (rng.random(m) * 0.02 + 0.005).astype(F32) if per_channel else np.array(0.01, F32),
        "wz": np.zeros(m if per_channel else (), np.int8),
        "ys": np.array(0.2, F32),
        "yz": zero_point(-3, x_type),
    }
    ins = [
        ("x", elem(x_type)),
        ("xs", None),
        ("xz", None),
        ("w", None),
        ("ws", None),
        ("wz", None),
        ("ys", None),
        ("yz", None),
    ]
    if bias:
        inits["b"] = rng.integers(-500, 500, m).astype(np.int32)
        ins.append(("b", None))
    outs = [("y", elem(x_type))]
    ref = ms_model("QLinearConv", ins, outs, inits, domain="", group=group, **attrs)
    model = ms_model("QLinearConv", ins, outs, inits, group=group, channels_last=int(nhwc), **attrs)
    return ref, model, x


@pytest.mark.parametrize("x_type", [np.uint8, np.int8])
@pytest.mark.parametrize("nhwc", [True, False])
@pytest.mark.parametrize(
    "group,per_channel,attrs",
    [
        (1, False, {}),
        (1, True, dict(pads=[1, 1, 1, 1])),
        (2, True, dict(strides=[2, 1])),
        (1, False, dict(dilations=[2, 2], pads=[0, 1, 2, 1])),
    ],
)
def test_qlinear_conv_channels_last_and_first(x_type, nhwc, group, per_channel, attrs):
    ref, model, x = case(x_type, nhwc, group, per_channel, **attrs)
    (want,) = light_run(ref, {"x": x})
    feed = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if nhwc else x
    (got,) = light_run(model, {"x": feed})
    if nhwc:
        want = want.transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ort_run(model, {"x": feed})[0], got)
