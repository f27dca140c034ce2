"""float32 Tanh, Sigmoid, Exp, Erf, HardSigmoid and HardSwish run in Highway vector code
(simd/conv_simd.cc): every length up to three vectors of the widest target (tails), the
special values, and the overflow edge of exp, against float64 numpy. Tolerance: 4e-7
relative + 1e-37 absolute (a few ULP; exp's 88..88.72 band 1e-6 relative; HardSigmoid and
HardSwish add 1e-7 absolute: a*x + b cancels near 0 in float32); NaN stays NaN,
exp(>88.7228) is +inf, exp(-inf) is 0."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, node_model, run_one
from _one_node import session

import onnx_light
from onnx_light.onnx import TensorProto

REFS = {
    "Tanh": (np.tanh, {}),
    "Sigmoid": (lambda x: 1 / (1 + np.exp(-x)), {}),
    "Exp": (np.exp, {}),
    "HardSigmoid": (
        lambda x: np.clip(np.float32(0.3) * x + np.float32(0.4), 0, 1),
        {"alpha": 0.3, "beta": 0.4},
    ),
    "HardSwish": (lambda x: x * np.clip(x / 6 + 0.5, 0, 1), {}),
}


def simd_session(op, attrs):
    F = TensorProto.FLOAT
    return onnx_light.RuntimeSession(node_model(op, [("x", F)], [("y", F)], **attrs))


@pytest.mark.parametrize("op", sorted(REFS))
def test_values_and_tails(op):
    ref, attrs = REFS[op]
    s = simd_session(op, attrs)
    rng = np.random.default_rng(3)
    for n in range(0, 49):  # every tail of 4, 8 and 16 lanes
        x = (rng.standard_normal(n) * 6).astype(np.float32)
        got = s.run(None, {"x": x})[0]
        want = ref(x.astype(np.float64))
        atol = 1e-7 if op.startswith("Hard") else 1e-37
        np.testing.assert_allclose(got, want, rtol=4e-7, atol=atol, err_msg=f"{op} n={n}")
    big = np.linspace(-100, 100, 4001, dtype=np.float32)
    want = ref(big.astype(np.float64))
    with np.errstate(over="ignore"):
        finite = np.isfinite(want.astype(np.float32))
    got = s.run(None, {"x": big})[0]
    rtol = 1e-6 if op == "Exp" else 4e-7
    atol = 1e-7 if op.startswith("Hard") else 1e-37
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol)
    assert np.all(np.isinf(got[~finite]))


@pytest.mark.parametrize("op", sorted(REFS))
def test_special_values(op):
    ref, attrs = REFS[op]
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.0, 88.5, 88.8, 1e30, -1e30], np.float32)
    got = simd_session(op, attrs).run(None, {"x": x})[0]
    assert np.isnan(got[0])
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref(x[1:].astype(np.float64)).astype(np.float32)
    if op == "HardSwish":  # inf * 1 = inf, -inf * 0 = NaN in float arithmetic
        want[1] = np.float32(np.nan) if np.isnan(want[1]) else want[1]
    np.testing.assert_allclose(got[1:], want, rtol=1e-6, atol=1e-37, equal_nan=True)


def test_erf_within_three_ulp_everywhere():
    # Erf's own approximation (simd/conv_simd.cc, fitted for the project): every float32 in
    # [-5, 5] on a fine grid, tiny and subnormal magnitudes, tails of every length, and the
    # special values, against math.erf in float64. At most 3 ULP of the float32 result.
    import math

    s = simd_session("Erf", {})
    rng = np.random.default_rng(11)
    x = np.concatenate(
        [
            np.linspace(-5, 5, 400_001, dtype=np.float32),
            np.logspace(-44, 0.6, 20_000).astype(np.float32),
            -np.logspace(-44, 0.6, 20_000).astype(np.float32),
            (rng.standard_normal(37) * 2).astype(np.float32),  # a tail
        ]
    )
    got = s.run(None, {"x": x})[0].astype(np.float64)
    want = np.array([math.erf(v) for v in x.astype(np.float64)])
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    worst = float(np.max(np.abs(got - want) / ulp))
    assert worst <= 3.0, worst
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 4.0, -1e30], np.float32)
    got = s.run(None, {"x": special})[0]
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:], [1.0, -1.0, 0.0, -0.0, 1.0, -1.0])
    assert np.signbit(got[4])
    for n in range(1, 40):  # every tail, the same values as the long run
        y = s.run(None, {"x": x[:n]})[0]
        np.testing.assert_array_equal(y, s.run(None, {"x": x[: n + 64]})[0][:n])


def test_swish():
    x = np.linspace(-6, 6, 25).astype(np.float32)
    (y,) = run_one("Swish", [("x", F)], {"x": x}, alpha=0.5, opset=24)
    np.testing.assert_allclose(y, x / (1 + np.exp(-0.5 * x)), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "dtype,etype",
    [(np.int64, TensorProto.INT64), (np.int32, TensorProto.INT32), (np.int8, TensorProto.INT8)],
)
def test_integer_abs_neg_wrap_at_the_minimum(dtype, etype):
    x = np.array([np.iinfo(dtype).min, -5, 0, 7, np.iinfo(dtype).max], dtype)
    for op, ref in (("Abs", np.abs), ("Neg", np.negative), ("Sign", np.sign)):
        (y,) = session(op, [("x", etype)], out_type=etype).run(None, {"x": x})
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(y, ref(x), err_msg=op)


def test_tanh_rational_within_its_stated_error_everywhere():
    """Tanh is x * P(u) / Q(u) (simd/conv_simd.cc, TanhRational): within 3.5e-7 relative of
    float64 tanh over 2M points of [-12, 12] and 200k of (1e-30, 1) on each side, exactly
    +-1 beyond 9.01, exactly x where tanh(x) rounds to x."""
    rng = np.random.default_rng(12)
    small = np.geomspace(1e-30, 1, 100_000)
    x = np.concatenate([rng.uniform(-12, 12, 2_000_000), small, -small]).astype(np.float32)
    s = simd_session("Tanh", {})
    (y,) = s.run(None, {"x": x})
    want = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(y, want, rtol=3.5e-7, atol=0)
    assert np.all(np.abs(y) <= 1)
    far = np.abs(x) > 9.01
    np.testing.assert_array_equal(y[far], np.sign(x[far]))
    tiny = np.abs(x) < 1e-4
    np.testing.assert_array_equal(y[tiny], x[tiny])
