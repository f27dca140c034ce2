"""Pow with a scalar exponent of 2 or 3 on float32 runs as products (RMS/layer norms, the
tanh form of GELU): x * x, and x * x * x in double rounded once, both within half an ULP
of the exact power (numpy's powf is within one); special values as pow gives them; other
exponents and broadcasts keep the general path."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model
from _one_node import check_bad_input, f32, session

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


@pytest.mark.parametrize(
    "dtype,etype", [(np.int64, TensorProto.INT64), (np.int32, TensorProto.INT32)]
)
def test_integer_pow_is_exact_and_wraps_like_numpy(dtype, etype):
    s = session("Pow", [("a", etype), ("b", etype)], out_type=etype)
    a = np.array([2, 3, -3, 7, 0, 5, -2, 10], dtype)
    b = np.array([10, 39, 41, 70, 0, 1, 63, 18], dtype)
    (y,) = s.run(None, {"a": a, "b": b})
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(y, np.power(a, b))
    # Negative exponents: the truncated quotient 1 / a^-b.
    (y,) = s.run(
        None, {"a": np.array([1, -1, -1, 2, -5], dtype), "b": np.array([-3, -3, -2, -1, -2], dtype)}
    )
    np.testing.assert_array_equal(y, np.array([1, -1, 1, 0, 0], dtype))


def test_integer_pow_with_float_exponent_saturates():
    s = session("Pow", [("a", I), ("b", F)], out_type=I)
    (y,) = s.run(
        None, {"a": np.array([2, 3, -3, 4]), "b": np.array([3.0, 100.0, 41.0, 0.5], np.float32)}
    )
    info = np.iinfo(np.int64)
    np.testing.assert_array_equal(y, np.array([8, info.max, info.min, 2]))


def test_legacy_broadcast_of_pow_follows_opset_6():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([2.0, 3.0], np.float32)
    (y,) = session("Pow", [("a", F), ("b", F)], opset=6, broadcast=1, axis=0).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, a ** b[:, None])


BAD_INPUTS = [
    (
        "Pow",
        [("a", F), ("b", F)],
        {"opset": 6},
        {"a": f32(2, 3), "b": f32(3)},
        "differ and broadcast is 0",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
