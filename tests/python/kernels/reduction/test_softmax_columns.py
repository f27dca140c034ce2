"""float32 Softmax and LogSoftmax along a non-last axis run a row of the [len x inner]
slab at a time (column maxima, exp in SIMD, column sums), against float64 numpy: softmax
within 2e-6 relative + 1e-7 absolute, log-softmax within 1e-6 absolute + 2e-7 relative
(its values are differences of O(10) numbers); a NaN makes its whole column NaN."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

CASES = [((2, 16, 300), 1), ((1, 4, 16, 2100), 2), ((3, 5, 7, 9), 0), ((2, 3, 8), 1)]


def session(op, axis, shape):
    node = helper.make_node(op, ["x"], ["y"], axis=axis)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    )


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,axis", CASES)
def test_softmax_along_inner_axes(op, shape, axis):
    x = (np.random.default_rng(1).standard_normal(shape) * 5).astype(np.float32)
    x.ravel()[5] = np.nan
    y = session(op, axis, shape).run(None, {"x": x})[0]
    xd = x.astype(np.float64)
    m = np.max(xd, axis=axis, keepdims=True)
    e = np.exp(xd - m)
    s = e.sum(axis=axis, keepdims=True)
    if op == "Softmax":
        np.testing.assert_allclose(y, e / s, rtol=2e-6, atol=1e-7, equal_nan=True)
    else:
        np.testing.assert_allclose(y, xd - m - np.log(s), rtol=2e-7, atol=1e-6, equal_nan=True)
    assert np.isnan(y).sum() == x.shape[axis]  # the NaN's column, nothing else
