"""Pow with a scalar exponent of 2 or 3 on float32 runs as products (RMS/layer norms, the
tanh form of GELU): x * x, and x * x * x in double rounded once, both within half an ULP
of the exact power (numpy's powf is within one); special values as pow gives them; other
exponents and broadcasts keep the general path."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto

F32 = np.float32


def pow_session(exponent, threads=1):
    F = TensorProto.FLOAT
    model = node_model(
        "Pow", [("x", F), ("e", None)], [("y", F)], initializers={"e": np.array(exponent, F32)}
    )
    return onnx_light.RuntimeSession(model, intra_op_threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("exponent", [2.0, 3.0])
def test_squares_and_cubes_within_half_an_ulp(exponent, threads):
    x = (np.random.default_rng(2).standard_normal(300_001) * 30).astype(np.float32)
    got = pow_session(exponent, threads).run(None, {"x": x})[0]
    exact = x.astype(np.float64) ** exponent
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert float(np.max(np.abs(got - exact) / ulp)) <= 0.5


@pytest.mark.parametrize("exponent", [2.0, 3.0, 2.5])
def test_special_values(exponent):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e20, -1e20, 1e-30], np.float32)
    got = pow_session(exponent).run(None, {"x": x})[0]
    with np.errstate(all="ignore"):
        want = np.power(x, np.float32(exponent))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
