"""com.microsoft SkipSimplifiedLayerNormalization
(src/onnx_light/kernels/com_microsoft/skip_simplified_layer_normalization.cc): the residual
add and RMS normalization against a float64 reference and ONNX Runtime (whose mean output
is zeros), with and without bias, 2-D token-major and 3-D inputs."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn
from _skip_norm import skip_norm

OP = "SkipSimplifiedLayerNormalization"


@pytest.mark.parametrize(
    "shape,skip_shape",
    [
        ((2, 5, 64), (2, 5, 64)),
        ((9, 96), (9, 96)),
        ((1, 1, 3072), (1, 1, 3072)),
        ((3, 4, 8), (4, 8)),
    ],
)
@pytest.mark.parametrize("with_bias", [False, True])
def test_skip_simplified_matches_the_reference_and_ort(shape, skip_shape, with_bias):
    rng = np.random.default_rng(10)
    h = shape[-1]
    ins = [("x", F), ("skip", F), ("gamma", F)] + ([("bias", F)] if with_bias else [])
    outs = [("y", F), ("mean", F), ("inv", F), ("sum", F)]
    feeds = {"x": randn(rng, *shape), "skip": randn(rng, *skip_shape), "gamma": randn(rng, h)}
    feeds |= {"bias": randn(rng, h)} if with_bias else {}
    got = check_vs_ort(ms_model(OP, ins, outs, epsilon=1e-6), feeds, rtol=1e-5, atol=2e-6)
    want = skip_norm(
        feeds["x"], feeds["skip"], feeds["gamma"], None, feeds.get("bias"), 1e-6, rms=True
    )
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-6)
    assert not got[1].any()


def test_skip_simplified_refuses_a_gamma_of_another_size():
    m = ms_model(OP, [("x", F), ("skip", F), ("gamma", F)], [("y", F)])
    feeds = {
        "x": np.ones((2, 8), np.float32),
        "skip": np.ones((2, 8), np.float32),
        "gamma": np.ones(9, np.float32),
    }
    with pytest.raises(ValueError, match=r"gamma \[9\] must be \[8\]"):
        light_run(m, feeds)
