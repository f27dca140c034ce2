"""com.microsoft FastGelu (src/onnx_light/kernels/com_microsoft/fast_gelu.cc): the tanh
approximation, with and without its bias, against a float64 reference and ONNX Runtime."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn


def fast_gelu(x, bias=None):
    v = x.astype(np.float64) + (0 if bias is None else bias)
    return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))


@pytest.mark.parametrize("shape", [(9,), (2, 5, 32), (1, 3, 3072)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_fast_gelu_matches_the_formula_and_ort(shape, with_bias):
    rng = np.random.default_rng(3)
    x, b = randn(rng, *shape, scale=3), randn(rng, shape[-1])
    inputs = [("x", F)] + ([("b", F)] if with_bias else [])
    feeds = {"x": x} | ({"b": b} if with_bias else {})
    (y,) = check_vs_ort(ms_model("FastGelu", inputs, [("y", F)]), feeds)
    np.testing.assert_allclose(y, fast_gelu(x, b if with_bias else None), rtol=2e-6, atol=1e-6)


def test_fast_gelu_with_an_empty_bias_name_is_without_bias():
    x = randn(np.random.default_rng(4), 3, 8)
    (y,) = light_run(ms_model("FastGelu", [("x", F), ("", None)], [("y", F)]), {"x": x})
    np.testing.assert_allclose(y, fast_gelu(x), rtol=2e-6, atol=1e-6)


def test_fast_gelu_refuses_a_bias_of_the_wrong_size():
    m = ms_model("FastGelu", [("x", F), ("b", F)], [("y", F)])
    with pytest.raises(
        ValueError, match=r"FastGelu, domain com.microsoft\): bias \[5\] must be 1-D"
    ):
        light_run(m, {"x": np.ones((2, 4), np.float32), "b": np.ones(5, np.float32)})
