"""CumSum and CumProd (src/onnx_light/kernels/math/cumulative.cc): running sums and products
along an axis, plain, exclusive and reversed, against numpy (floats at rtol 1e-6: float32
sums in order; integers exactly, wrapping modulo 2^bits as numpy does)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F, I
from _one_node import check_bad_input, f32, session


def numpy_cumulative(x, axis, exclusive, reverse, op):
    y = np.flip(x, axis) if reverse else x
    run = np.cumsum(y, axis) if op == "CumSum" else np.cumprod(y, axis)
    if exclusive:
        ident = 0 if op == "CumSum" else 1
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        run = np.pad(run, pad, constant_values=ident)
        run = np.take(run, range(x.shape[axis]), axis=axis)
    return np.flip(run, axis) if reverse else run


@pytest.mark.parametrize("op,opset", [("CumSum", 14), ("CumProd", 26)])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_float_against_numpy(op, opset, exclusive, reverse, axis):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    s = session(op, [("x", F), ("a", I)], opset=opset, exclusive=exclusive, reverse=reverse)
    (y,) = s.run(None, {"x": x, "a": np.array(axis)})
    want = numpy_cumulative(x.astype(np.float64), axis, exclusive, reverse, op)
    np.testing.assert_allclose(y, want, rtol=1e-6)


@pytest.mark.parametrize("op,opset", [("CumSum", 14), ("CumProd", 26)])
def test_int32_wraps_like_numpy(op, opset):
    x = np.array([2**30, 2**30, 3, -7], np.int32)
    s = session(op, [("x", I32), ("a", I)], out_type=I32, opset=opset)
    (y,) = s.run(None, {"x": x, "a": np.array(0)})
    with np.errstate(over="ignore"):
        want = np.cumsum(x, dtype=np.int32) if op == "CumSum" else np.cumprod(x, dtype=np.int32)
    np.testing.assert_array_equal(y, want)


BAD_INPUTS = [
    ("CumSum", [("x", F), ("a", I)], {"opset": 14}, {"x": f32(2, 3), "a": np.array(2)}, "axis 2"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
