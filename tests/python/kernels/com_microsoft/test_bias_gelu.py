"""com.microsoft BiasGelu (src/onnx_light/kernels/com_microsoft/bias_gelu.cc): Gelu(A + B)
against a float64 reference and ONNX Runtime; a bias not over the last dimension refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn


def bias_gelu(a, b):
    v = a.astype(np.float64) + b
    return 0.5 * v * (1 + np.vectorize(math.erf, otypes=[float])(v / math.sqrt(2)))


@pytest.mark.parametrize("shape", [(5,), (2, 3, 64), (1, 7, 3072), (3, 0, 4)])
def test_bias_gelu_matches_the_formula_and_ort(shape):
    rng = np.random.default_rng(2)
    a, b = randn(rng, *shape, scale=2), randn(rng, shape[-1])
    m = ms_model("BiasGelu", [("a", F), ("b", F)], [("y", F)])
    (y,) = check_vs_ort(m, {"a": a, "b": b})
    np.testing.assert_allclose(y, bias_gelu(a, b), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("b_shape", [(3,), (2, 4), ()])
def test_bias_gelu_refuses_a_bias_that_is_not_a_vector_over_the_last_dim(b_shape):
    m = ms_model("BiasGelu", [("a", F), ("b", F)], [("y", F)])
    feeds = {"a": np.ones((2, 4), np.float32), "b": np.ones(b_shape, np.float32)}
    with pytest.raises(ValueError, match=r"BiasGelu, domain com.microsoft\): bias .* must be 1-D"):
        light_run(m, feeds)


def test_bias_gelu_needs_both_inputs():
    with pytest.raises(ValueError, match="BiasGelu"):
        light_run(ms_model("BiasGelu", [("a", F)], [("y", F)]), {"a": np.ones(2, np.float32)})
