"""Add, Sub, Mul, Div where one operand is full-size and the other constant over a
trailing block (per-channel scales and biases): the block path, both operand orders,
several dtypes, against numpy (exact: one operation per element, the same rounding;
float16 computes in float32 and rounds once, as numpy's float16 does)."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int32): TensorProto.INT32,
}

SHAPES = [
    ((2, 3, 4, 5), (3, 1, 1)),
    ((3, 1, 1), (2, 3, 4, 5)),
    ((2, 3, 4, 5), (2, 3, 1, 1)),
    ((1, 8, 9), (8, 1)),
    ((4, 16), (4, 1)),
    ((2, 3, 4, 5), (1, 1, 1, 1)),
]


def run(op, a, b):
    elem = ELEM[a.dtype]
    node = helper.make_node(op, ["a", "b"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("a", elem, a.shape),
            helper.make_tensor_value_info("b", elem, b.shape),
        ],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    return onnx_light.RuntimeSession(model).run(None, {"a": a, "b": b})[0]


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_block_broadcast_matches_numpy(op, dtype, sa, sb):
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(sa) * 10).astype(dtype)
    b = (rng.standard_normal(sb) * 10).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        b[b == 0] = 3
    got = run(op, a, b)
    if dtype == np.float16:
        fa, fb = a.astype(np.float32), b.astype(np.float32)
    else:
        fa, fb = a, b
    if op == "Div" and np.issubdtype(dtype, np.integer):
        q = np.abs(fa) // np.abs(fb)  # C division truncates toward zero
        want = np.where((fa < 0) ^ (fb < 0), -q, q)
    else:
        want = {"Add": fa + fb, "Sub": fa - fb, "Mul": fa * fb, "Div": fa / fb}[op]
    np.testing.assert_array_equal(got, want.astype(dtype))
