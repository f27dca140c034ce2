"""SimplifiedLayerNormalization, ONNX Runtime's RMS normalization in the default domain
(src/onnx_light/kernels/com_microsoft/simplified_layer_normalization.cc): against float64
and ONNX Runtime for several axes and opsets, with its InvStdDev output; and
LayerNormalization at opsets before 17, which ORT also runs (nn/normalization.cc)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, H
from _ms import check_vs_ort, light_run, ms_model, randn


def rms(x, scale, axis, eps):
    axes = tuple(range(axis % x.ndim, x.ndim))
    v = x.astype(np.float64)
    inv = 1 / np.sqrt((v**2).mean(axes, keepdims=True) + eps)
    return v * inv * scale, inv


@pytest.mark.parametrize("opset", [11, 17, 21])
@pytest.mark.parametrize("shape,axis", [((2, 5, 64), -1), ((3, 4, 6), 1), ((7, 3072), -1)])
def test_simplified_layer_norm_matches_float64_and_ort(opset, shape, axis):
    rng = np.random.default_rng(11)
    x, scale = randn(rng, *shape, scale=2), randn(rng, *shape[axis % len(shape) :])
    m = ms_model(
        "SimplifiedLayerNormalization",
        [("x", F), ("s", F)],
        [("y", F), ("inv", F)],
        opset=opset,
        domain="",
        axis=axis,
        epsilon=1e-6,
    )
    y, inv = check_vs_ort(m, {"x": x, "s": scale}, rtol=1e-5, atol=2e-6)
    want_y, want_inv = rms(x, scale, axis, 1e-6)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(inv, want_inv, rtol=1e-6)


def test_simplified_layer_norm_float16():
    rng = np.random.default_rng(12)
    x, scale = randn(rng, 4, 32).astype(np.float16), randn(rng, 32).astype(np.float16)
    m = ms_model("SimplifiedLayerNormalization", [("x", H), ("s", H)], [("y", H)], domain="")
    (y,) = light_run(m, {"x": x, "s": scale})
    assert y.dtype == np.float16
    np.testing.assert_allclose(
        y, rms(x, scale.astype(np.float64), -1, 1e-5)[0], rtol=2e-3, atol=2e-3
    )


def test_simplified_layer_norm_refuses_a_scale_that_does_not_broadcast():
    m = ms_model("SimplifiedLayerNormalization", [("x", F), ("s", F)], [("y", F)], domain="")
    with pytest.raises(
        ValueError,
        match=r"\(SimplifiedLayerNormalization\): shapes \[3\] and \[8\] cannot be broadcast",
    ):
        light_run(m, {"x": np.ones((2, 8), np.float32), "s": np.ones(3, np.float32)})


@pytest.mark.parametrize("opset", [11, 13, 16])
def test_layer_normalization_before_opset_17_as_ort_runs_it(opset):
    rng = np.random.default_rng(13)
    x, s, b = randn(rng, 2, 7, 48), randn(rng, 48), randn(rng, 48)
    m = ms_model(
        "LayerNormalization",
        [("x", F), ("s", F), ("b", F)],
        [("y", F), ("mean", F), ("inv", F)],
        opset=opset,
        domain="",
        epsilon=1e-5,
    )
    y, mean, inv = check_vs_ort(m, {"x": x, "s": s, "b": b}, rtol=1e-5, atol=2e-6)
    v = x.astype(np.float64)
    mu = v.mean(-1, keepdims=True)
    want_inv = 1 / np.sqrt(((v - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, (v - mu) * want_inv * s + b, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(mean, mu, atol=1e-6)
    np.testing.assert_allclose(inv, want_inv, rtol=1e-6)
