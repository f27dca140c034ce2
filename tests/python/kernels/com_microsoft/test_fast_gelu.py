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


def test_fast_gelu_keeps_relative_accuracy_in_the_negative_tail():
    # 0.5 (1 + tanh(z)) computed as sigmoid(2 z): where tanh(z) nears -1 (x below about -3)
    # the result is tiny and 1 + tanh(z) in float32 would keep only a few bits of it; the
    # float64 formula through log-sigmoid is the reference. Relative 2e-6 plus the float32
    # rounding of the exponent 2 z itself (3e-7 |2 z|: 2e-5 at x = -9, results ~1e-28),
    # then the float32 underflow; inf and NaN as the formula gives them.
    x = np.concatenate([np.linspace(-9, 9, 20001), [-30.0, 30.0, 1e20, -1e20]]).astype(np.float32)
    v = x.astype(np.float64)
    z2 = 2 * math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)
    want = v * np.exp(-np.logaddexp(0, -z2))
    (y,) = light_run(ms_model("FastGelu", [("x", F)], [("y", F)]), {"x": x})
    bound = (2e-6 + 3e-7 * np.abs(z2)) * np.abs(want) + 2e-38
    worst = np.argmax(np.abs(y - want) / bound)
    assert abs(y[worst] - want[worst]) <= bound[worst], (x[worst], y[worst], want[worst])
    assert np.signbit(y[-1]) and y[-1] == 0  # a large negative x gives -0
    (s,) = light_run(
        ms_model("FastGelu", [("x", F)], [("y", F)]),
        {"x": np.array([np.inf, -np.inf, np.nan], np.float32)},
    )
    assert s[0] == np.inf and np.isnan(s[1]) and np.isnan(s[2])
