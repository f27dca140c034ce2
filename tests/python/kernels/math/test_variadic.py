"""Min, Max, Sum and Mean (src/onnx_light/kernels/math/variadic.cc): any number of inputs
broadcast together, against numpy (float32 sums and means at rtol 1e-6; Min and Max
exactly, NaN propagating as numpy's fmin/fmax do not: np.minimum / np.maximum)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, H, I
from _one_node import check_bad_input

import onnx_light
from onnx_light.onnx import helper

RNG = np.random.default_rng(17)


def variadic(op, n, elem=F):
    names = [f"x{i}" for i in range(n)]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"])],
        "g",
        [helper.make_tensor_value_info(x, elem, None) for x in names],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    )


SHAPES = [(2, 3, 4), (3, 1), (4,)]


@pytest.mark.parametrize(
    "op,ref",
    [
        ("Min", lambda xs: np.minimum.reduce(np.broadcast_arrays(*xs))),
        ("Max", lambda xs: np.maximum.reduce(np.broadcast_arrays(*xs))),
        ("Sum", lambda xs: sum(np.broadcast_arrays(*xs))),
        ("Mean", lambda xs: sum(np.broadcast_arrays(*xs)) / len(xs)),
    ],
)
def test_three_broadcast_inputs(op, ref):
    xs = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES]
    (y,) = variadic(op, 3).run(None, {f"x{i}": x for i, x in enumerate(xs)})
    np.testing.assert_allclose(y, ref([x.astype(np.float64) for x in xs]), rtol=1e-6)


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_mean_of_float_is_the_float_sum_divided_exactly(k):
    # the inputs summed in float one after another, then divided by k: bit for bit numpy
    # doing the same in float32 (the division in float equals the one through double)
    xs = [RNG.standard_normal((64, 33)).astype(np.float32) * 100 for _ in range(k)]
    (y,) = variadic("Mean", k).run(None, {f"x{i}": x for i, x in enumerate(xs)})
    total = xs[0].copy()
    for x in xs[1:]:
        total = total + x
    np.testing.assert_array_equal(y, total / np.float32(k))
    via_double = (total.astype(np.float64) / k).astype(np.float32)
    np.testing.assert_array_equal(y, via_double)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("k", [2, 3])
def test_mean_of_half_and_double(dtype, k):
    # double: the sum folded in double, divided by k, exactly as numpy does it. float16: the
    # sum kept in float (no rounding to half between folds), divided by k, rounded to half
    # once: within one half ulp (2^-10 relative) of the exact mean.
    elem = {np.float16: H, np.float64: D}[dtype]
    xs = [(RNG.standard_normal((8, 33)) * 10).astype(dtype) for _ in range(k)]
    (y,) = variadic("Mean", k, elem).run(None, {f"x{i}": x for i, x in enumerate(xs)})
    assert y.dtype == dtype
    if dtype is np.float64:
        np.testing.assert_array_equal(y, sum(xs) / k)
    else:
        exact = sum(x.astype(np.float64) for x in xs) / k
        np.testing.assert_allclose(y, exact, rtol=2**-10, atol=2**-24)


def test_one_input_is_the_identity_and_nan_propagates():
    x = np.array([1.0, np.nan, -2.0], np.float32)
    (y,) = variadic("Max", 1).run(None, {"x0": x})
    np.testing.assert_array_equal(y, x)
    (y,) = variadic("Min", 2).run(None, {"x0": x, "x1": np.zeros(3, np.float32)})
    np.testing.assert_array_equal(y, np.minimum(x, 0))


@pytest.mark.parametrize("op,ref", [("Min", np.minimum), ("Max", np.maximum)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_nan_in_either_operand_propagates(op, ref, dtype):
    # NaN is tested in the operands' own type (x != x); either side's NaN comes out, with a
    # full tensor, a scalar on either side (the vectorized paths) and infinities.
    elem = {np.float32: F, np.float64: D, np.float16: H}
    x = np.array([1.0, np.nan, -2.0, np.inf, -np.inf, 0.0, np.nan, 3.0] * 5, dtype)
    z = np.array([np.nan, 0.5, -3.0, 1.0, -1.0, 2.0, np.nan, np.inf] * 5, dtype)
    sess = variadic(op, 2, elem[dtype])
    for a, b in ((x, z), (z, x), (x, z[:1]), (z[1:2], x), (x, z[6:7])):
        (y,) = sess.run(None, {"x0": a, "x1": b})
        np.testing.assert_array_equal(y, ref(a, b), err_msg=f"{op} {a[:3]} {b[:3]}")


def test_int64_max_is_exact():
    a = np.array([2**62, -(2**62), 5], np.int64)
    b = np.array([2**62 + 1, -(2**62) - 1, 5], np.int64)
    (y,) = variadic("Max", 2, I).run(None, {"x0": a, "x1": b})
    np.testing.assert_array_equal(y, np.maximum(a, b))


def test_shapes_that_do_not_broadcast_are_refused():
    check_bad_input(
        "Sum",
        [("a", F), ("b", F)],
        {"opset": 13},
        {"a": np.ones((2, 3), np.float32), "b": np.ones(4, np.float32)},
        "cannot be broadcast",
    )
