"""com.microsoft QuickGelu (src/onnx_light/kernels/com_microsoft/quick_gelu.cc): x *
sigmoid(alpha x) for the default and other alphas, against float64 and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn


def quick_gelu(x, alpha):
    v = x.astype(np.float64)
    return v / (1 + np.exp(-alpha * v))


@pytest.mark.parametrize("alpha", [None, 1.0, -0.5, 2.5])
@pytest.mark.parametrize("shape", [(1,), (3, 17), (2, 4, 768)])
def test_quick_gelu_matches_the_formula_and_ort(alpha, shape):
    x = randn(np.random.default_rng(5), *shape, scale=4)
    attrs = {} if alpha is None else {"alpha": alpha}
    (y,) = check_vs_ort(ms_model("QuickGelu", [("x", F)], [("y", F)], **attrs), {"x": x})
    want = quick_gelu(x, 1.702 if alpha is None else np.float32(alpha))
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-6)


def test_quick_gelu_alpha_must_be_a_float():
    with pytest.raises(ValueError, match="alpha"):
        light_run(
            ms_model("QuickGelu", [("x", F)], [("y", F)], alpha=2), {"x": np.ones(2, np.float32)}
        )
