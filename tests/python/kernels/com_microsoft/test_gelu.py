"""com.microsoft Gelu (src/onnx_light/kernels/com_microsoft/gelu.cc): the erf form against a
float64 reference and ONNX Runtime, several shapes; types other than float refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _graphs import D, F
from _ms import check_vs_ort, light_run, ms_model, randn


def gelu(x):
    erf = np.vectorize(math.erf, otypes=[float])
    return 0.5 * x * (1 + erf(x.astype(np.float64) / math.sqrt(2)))


@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 33), (4, 0, 5)])
def test_gelu_matches_the_erf_formula_and_ort(shape):
    x = randn(np.random.default_rng(1), *shape, scale=3)
    m = ms_model("Gelu", [("x", F)], [("y", F)])
    (y,) = check_vs_ort(m, {"x": x})
    np.testing.assert_allclose(y, gelu(x), rtol=1e-6, atol=1e-7)


def test_gelu_keeps_nan_and_saturates_at_the_tails():
    x = np.array([np.nan, -np.inf, np.inf, -30, 30], np.float32)
    (y,) = light_run(ms_model("Gelu", [("x", F)], [("y", F)]), {"x": x})
    assert np.isnan(y[0])
    np.testing.assert_array_equal(y[2:], [np.inf, -0.0, 30])


def test_gelu_refuses_double_as_ort_cpu_does():
    with pytest.raises(
        RuntimeError, match="NOT_IMPLEMENTED: no kernel .* Gelu, domain com.microsoft"
    ):
        light_run(ms_model("Gelu", [("x", D)], [("y", D)]), {"x": np.ones(2)})
