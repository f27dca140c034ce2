"""float32 Sqrt, Abs, Neg, Reciprocal, Floor, Ceil, Round, Sign, Elu, Selu, Celu, Softplus,
Mish, Exp, Sin, Cos, Softsign, ThresholdedRelu and Shrink in Highway vector code (simd/unary_simd.cc), and
float16 (and bfloat16) through the same float32 path in blocks.

Against float64 numpy of the same formula on every length up to 49 (every vector tail) and
on the special values (signed zeros, infinities, NaN, subnormals, halves for Round, the
extremes): the exact ops (Sqrt, Abs, Neg, Reciprocal, Floor, Ceil, Round half to even,
ThresholdedRelu, Shrink, Softsign, Sign) bit for bit what float32 numpy gives, NaN where
it gives NaN; the exponential ones within 1e-6 relative + 1e-37 absolute (Highway's
Exp/Expm1/Log1p, 4 ULP at most; Exp's own 2); Sin and Cos within 4e-7 relative + 5e-7
absolute (3 ULP of values up to 1), up to 39000 and beyond. float16: exactly the float32 result of the float16 input rounded once to
float16 (numpy's round half to even)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto

F32 = np.float32
EXACT = {
    "Sqrt": (np.sqrt, {}),
    "Abs": (np.abs, {}),
    "Neg": (np.negative, {}),
    "Reciprocal": (lambda x: F32(1) / x, {}),
    "Floor": (np.floor, {}),
    "Ceil": (np.ceil, {}),
    "Round": (np.round, {}),  # half to even
    "Softsign": (lambda x: x / (F32(1) + np.abs(x)), {}),
    "ThresholdedRelu": (lambda x: np.where(x > F32(0.7), x, F32(0)), {"alpha": 0.7}),
    "Shrink": (
        lambda x: np.where(x < -0.5, x + F32(0.25), np.where(x > 0.5, x - F32(0.25), F32(0))),
        {"bias": 0.25, "lambd": 0.5},
    ),
    "Sign": (lambda x: np.where(x > 0, F32(1), np.where(x < 0, F32(-1), x)), {}),
}
CLOSE = {
    "Elu": (lambda x: np.where(x >= 0, x, 0.8 * np.expm1(np.minimum(x, 0))), {"alpha": 0.8}),
    "Selu": (
        lambda x: 1.05 * np.where(x > 0, x, 1.6 * np.exp(np.minimum(x, 0)) - 1.6),
        {"alpha": 1.6, "gamma": 1.05},
    ),
    "Celu": (
        lambda x: np.maximum(x, 0) + np.minimum(0, 1.3 * np.expm1(np.minimum(x, 0) / 1.3)),
        {"alpha": 1.3},
    ),
    "Softplus": (lambda x: np.logaddexp(0, x), {}),
    "Exp": (np.exp, {}),  # the Cephes method, 2 ULP; subnormal results and overflow too
    "Mish": (lambda x: x * np.tanh(np.logaddexp(0, x)), {}),
}
# Highway's Sin and Cos (3 ULP of the result, so an absolute bound near the zeros) for
# |x| <= 39000, the C library's beyond (1e30, inf, NaN).
TRIG = {"Sin": np.sin, "Cos": np.cos}
SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, 0.5, 1.5, 2.5, -0.5, -2.5]
    + [3.4e38, -3.4e38, 88.0, 89.0, -87.0, -104.0, -1e30, 1e30, 0.7, 0.5000001, -0.4999999],
    F32,
)


def session(op, attrs, elem=TensorProto.FLOAT, threads=1):
    model = node_model(op, [("x", elem)], [("y", elem)], opset=18, **attrs)
    return onnx_light.RuntimeSession(model, intra_op_threads=threads)


def inputs():
    rng = np.random.default_rng(3)
    for n in range(0, 49):  # every tail of 4, 8 and 16 lanes
        yield (rng.standard_normal(n) * 4).astype(F32)
    yield SPECIAL
    yield np.tile(SPECIAL, 5000)  # 115k values: chunks across threads


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(EXACT))
def test_exact_ops_are_bit_for_bit_numpy(op, threads):
    ref, attrs = EXACT[op]
    s = session(op, attrs, threads=threads)
    with np.errstate(all="ignore"):
        for x in inputs():
            (y,) = s.run(None, {"x": x})
            want = ref(x).astype(F32)
            assert y.dtype == F32 and y.shape == x.shape
            np.testing.assert_array_equal(y, want, err_msg=f"{op} n={x.size}")
            # Signed zeros too (assert_array_equal treats -0 == 0).
            zero = want == 0
            np.testing.assert_array_equal(np.signbit(y[zero]), np.signbit(want[zero]), err_msg=op)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(CLOSE))
def test_exponential_ops_within_a_few_ulp(op, threads):
    ref, attrs = CLOSE[op]
    s = session(op, attrs, threads=threads)
    with np.errstate(all="ignore"):
        for x in inputs():
            (y,) = s.run(None, {"x": x})
            want = ref(x.astype(np.float64)).astype(F32)  # overflow to inf as float does
            np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-37, err_msg=f"{op} n={x.size}")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(TRIG))
def test_sin_and_cos_within_a_few_ulp(op, threads):
    s = session(op, {}, threads=threads)
    rng = np.random.default_rng(5)
    big = np.array([38999.0, -38999.5, 39001.0, 1e5, -3e7, 1e30], F32)
    with np.errstate(all="ignore"):
        for x in [*inputs(), big, (rng.uniform(-3e4, 3e4, 4099)).astype(F32)]:
            (y,) = s.run(None, {"x": x})
            want = TRIG[op](x.astype(np.float64))
            np.testing.assert_allclose(y, want, rtol=4e-7, atol=5e-7, err_msg=f"{op} n={x.size}")
            assert (np.isnan(y) == np.isnan(want)).all()


# Highway's Asin and Acos (2 ULP) on [-1, 1], NaN outside as the C library gives; Atan (3
# ULP) on finite x, +-pi/2 at the infinities. Swish: x * sigmoid(alpha x) in the vector
# sigmoid (the Silu epilogue's).
INVERSE = {"Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(INVERSE))
def test_inverse_trig_within_a_few_ulp(op, threads):
    s = session(op, {}, threads=threads)
    rng = np.random.default_rng(6)
    edges = np.array([1.0, -1.0, 1.0000001, -1.0000001, 0.9999999, 0.5, -0.5, 2.0, 1e30], F32)
    with np.errstate(all="ignore"):
        for x in [*inputs(), edges, rng.uniform(-1, 1, 4099).astype(F32)]:
            (y,) = s.run(None, {"x": x})
            want = INVERSE[op](x.astype(np.float64))
            np.testing.assert_allclose(y, want, rtol=4e-7, atol=1e-7, err_msg=f"{op} n={x.size}")
            assert (np.isnan(y) == np.isnan(want)).all(), op
            zero = want == 0
            np.testing.assert_array_equal(np.signbit(y[zero]), np.signbit(want[zero]), err_msg=op)


@pytest.mark.parametrize("alpha", [1.0, 1.702])
def test_swish_is_x_times_sigmoid_of_alpha_x(alpha):
    model = node_model(
        "Swish", [("x", TensorProto.FLOAT)], [("y", TensorProto.FLOAT)], opset=24, alpha=alpha
    )
    s = onnx_light.RuntimeSession(model)
    with np.errstate(all="ignore"):
        for x in inputs():
            (y,) = s.run(None, {"x": x})
            x64 = x.astype(np.float64)
            want = (x64 * (1 / (1 + np.exp(-alpha * x64)))).astype(
                F32
            )  # -inf * 0: NaN; subnormal results within 1e-37, as the CLOSE ops
            np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-37, err_msg=f"n={x.size}")


HALF_OPS = sorted(set(EXACT) | set(CLOSE) - {"Celu"}) + ["Tanh", "Sin"]  # Celu: float only


@pytest.mark.parametrize("op", HALF_OPS)
def test_float16_and_bfloat16_through_the_float32_path(op):
    attrs = {**EXACT, **CLOSE}.get(op, (None, {}))[1]
    x32 = np.concatenate([SPECIAL, (np.random.default_rng(4).standard_normal(9001) * 4)])
    with np.errstate(all="ignore"):
        x16 = x32.astype(np.float16)
        (f,) = session(op, attrs).run(None, {"x": x16.astype(F32)})
        (h,) = session(op, attrs, TensorProto.FLOAT16, threads=2).run(None, {"x": x16})
    assert h.dtype == np.float16
    with np.errstate(over="ignore"):  # (Exp's float results past float16's range: inf)
        np.testing.assert_array_equal(h, f.astype(np.float16), err_msg=op)
