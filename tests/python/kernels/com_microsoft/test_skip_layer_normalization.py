"""com.microsoft SkipLayerNormalization
(src/onnx_light/kernels/com_microsoft/skip_layer_normalization.cc): every output against
a float64 reference and ONNX Runtime, for 2-D and 3-D inputs, a skip shared by the batch,
with and without beta and bias, float16 and double; ORT's shape rules refused."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, H
from _ms import check_vs_ort, light_run, ms_model, randn
from _skip_norm import skip_norm

OUTS = [("y", F), ("mean", F), ("inv", F), ("sum", F)]


def model(with_beta, with_bias, outs=OUTS, t=F, **attrs):
    ins = [("x", t), ("skip", t), ("gamma", t), ("beta" if with_beta else "", t)]
    ins += [("bias", t)] if with_bias else []
    outs = [(n, t if n in ("y", "sum") else F) for n, _ in outs]
    return ms_model("SkipLayerNormalization", ins, outs, **attrs)


@pytest.mark.parametrize(
    "shape,skip_shape",
    [
        ((2, 5, 16), (2, 5, 16)),
        ((2, 5, 16), (1, 5, 16)),
        ((3, 7, 768), (7, 768)),
        ((4, 33), (4, 33)),
    ],
)
@pytest.mark.parametrize("with_beta,with_bias", [(True, True), (True, False), (False, True)])
def test_skip_layer_norm_matches_the_reference_and_ort(shape, skip_shape, with_beta, with_bias):
    rng = np.random.default_rng(7)
    h = shape[-1]
    feeds = {"x": randn(rng, *shape), "skip": randn(rng, *skip_shape), "gamma": randn(rng, h)}
    feeds |= {"beta": randn(rng, h)} if with_beta else {}
    feeds |= {"bias": randn(rng, h)} if with_bias else {}
    got = check_vs_ort(model(with_beta, with_bias, epsilon=1e-5), feeds, rtol=1e-5, atol=2e-6)
    want = skip_norm(
        feeds["x"], feeds["skip"], feeds["gamma"], feeds.get("beta"), feeds.get("bias"), 1e-5
    )
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-6)


def test_skip_layer_norm_output_only_and_default_epsilon():
    rng = np.random.default_rng(8)
    feeds = {"x": randn(rng, 2, 3, 8), "skip": randn(rng, 2, 3, 8), "gamma": randn(rng, 8)}
    (y,) = check_vs_ort(model(False, False, outs=[("y", F)]), feeds)
    want = skip_norm(feeds["x"], feeds["skip"], feeds["gamma"])[0]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("t,dtype,tol", [(D, np.float64, 1e-12), (H, np.float16, 2e-3)])
def test_skip_layer_norm_in_double_and_float16(t, dtype, tol):
    rng = np.random.default_rng(9)
    feeds = {
        k: randn(rng, *s).astype(dtype)
        for k, s in [("x", (2, 4, 32)), ("skip", (4, 32)), ("gamma", (32,)), ("beta", (32,))]
    }
    m = model(True, False, outs=[("y", F), ("mean", F), ("inv", F), ("sum", F)], t=t)
    got = light_run(m, feeds)
    want = skip_norm(*(feeds[k].astype(np.float64) for k in ("x", "skip", "gamma", "beta")))
    for i, (g, w) in enumerate(zip(got, want)):
        stat_tol = max(tol, 1e-6) if i in (1, 2) else tol  # mean and inv_std_var are float
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=stat_tol, atol=stat_tol)
    assert got[0].dtype == dtype and got[1].dtype == np.float32 and got[3].dtype == dtype


@pytest.mark.parametrize(
    "x,skip,gamma,message",
    [
        ((2, 3, 4, 8), (2, 3, 4, 8), (8,), "input .* must have 2 or 3 dimensions"),
        ((2, 3, 8), (8,), (8,), "skip .* must have 2 or 3 dimensions"),
        ((2, 3, 8), (2, 1, 8), (8,), "skip .* must be the input's shape"),
        ((2, 3, 8), (3, 2, 8), (8,), "skip .* must be the input's shape"),
        ((2, 3, 8), (2, 3, 8), (4,), r"gamma \[4\] must be \[8\]"),
        ((3, 8), (1, 3, 8), (8,), "skip .* must be the input's shape"),
    ],
)
def test_skip_layer_norm_refuses_shapes_ort_refuses(x, skip, gamma, message):
    m = model(False, False, outs=[("y", F)])
    feeds = {"x": np.ones(x, np.float32), "skip": np.ones(skip, np.float32)}
    feeds["gamma"] = np.ones(gamma, np.float32)
    with pytest.raises(
        ValueError, match="SkipLayerNormalization, domain com.microsoft.*" + message
    ):
        light_run(m, feeds)


def test_skip_layer_norm_needs_three_inputs():
    m = ms_model("SkipLayerNormalization", [("x", F), ("skip", F)], [("y", F)])
    with pytest.raises(ValueError, match="SkipLayerNormalization"):
        light_run(m, {"x": np.ones((1, 2), np.float32), "skip": np.ones((1, 2), np.float32)})
