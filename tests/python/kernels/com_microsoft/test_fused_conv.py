"""com.microsoft FusedConv (src/onnx_light/kernels/com_microsoft/fused_conv.cc): Conv with
ORT's activations and the Z input, against ONNX Runtime and a float64 reference built from
the plain Conv (onnx-light's and ORT's ai.onnx Conv agree with numpy elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn

ACTS = [
    ("Relu", None, lambda x: np.maximum(x, 0)),
    ("Tanh", None, np.tanh),
    ("Sigmoid", None, lambda x: 1 / (1 + np.exp(-x))),
    ("LeakyRelu", [0.2], lambda x: np.where(x < 0, 0.2 * x, x)),
    ("Clip", [-0.5, 1.0], lambda x: np.clip(x, -0.5, 1.0)),
    ("HardSigmoid", [0.3, 0.4], lambda x: np.clip(0.3 * x + 0.4, 0, 1)),
]


def conv_ref(x, w, b, pads, strides, group):
    """A direct float64 convolution of x [N, C, H, W]."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        for i in range(oh):
            for j in range(ow):
                patch = xp[
                    :,
                    g * cg : (g + 1) * cg,
                    i * strides[0] : i * strides[0] + kh,
                    j * strides[1] : j * strides[1] + kw,
                ]
                y[:, g * mg : (g + 1) * mg, i, j] = np.einsum(
                    "nchw,mchw->nm", patch, w[g * mg : (g + 1) * mg]
                )
    return y + b[None, :, None, None]


@pytest.mark.parametrize("act,params,fn", ACTS, ids=[a[0] for a in ACTS])
@pytest.mark.parametrize("with_z", [False, True])
@pytest.mark.parametrize("group,strides", [(1, [1, 1]), (2, [2, 1])])
def test_fused_conv_matches_conv_then_activation_and_ort(act, params, fn, with_z, group, strides):
    rng = np.random.default_rng(24)
    x, w, b = randn(rng, 2, 4, 9, 8), randn(rng, 6, 4 // group, 3, 3), randn(rng, 6)
    pads = [1, 1, 1, 1]
    want = conv_ref(x, w, b, pads, strides, group)
    z = randn(rng, *want.shape)
    attrs = dict(pads=pads, strides=strides, group=group, activation=act)
    if params:
        attrs["activation_params"] = params
    ins = [("x", F), ("w", F), ("b", F)] + ([("z", F)] if with_z else [])
    feeds = {"x": x, "w": w, "b": b} | ({"z": z} if with_z else {})
    (y,) = check_vs_ort(ms_model("FusedConv", ins, [("y", F)], **attrs), feeds, 1e-5, 1e-5)
    np.testing.assert_allclose(y, fn(want + (z if with_z else 0)), rtol=1e-5, atol=1e-5)


def test_fused_conv_refuses_an_unknown_activation():
    m = ms_model("FusedConv", [("x", F), ("w", F)], [("y", F)], activation="Swish")
    with pytest.raises(ValueError, match="unknown activation 'Swish'"):
        light_run(
            m, {"x": np.ones((1, 1, 3, 3), np.float32), "w": np.ones((1, 1, 1, 1), np.float32)}
        )
