"""OneHot (src/onnx_light/kernels/tensor/one_hot.cc): every element the off value, then
each index's on value; indices in [-depth, depth) select (negative ones from the end),
others (and NaN) give an all-off row, as the spec says. Exact against a numpy loop over
every axis, item size and strings."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import helper, numpy_helper


def reference(indices, depth, values, axis):
    idx = np.trunc(indices.astype(np.float64))
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.arange(depth).reshape([depth] + [1] * indices.ndim) == idx[None]
    out = np.where(hot, values[1], values[0])  # depth first, then moved to `axis`
    return np.moveaxis(out, 0, axis if axis >= 0 else indices.ndim + 1 + axis)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize(
    "values",
    [
        np.array([0.0, 1.0], np.float32),
        np.array([-3, 7], np.int64),
        np.array([2, 9], np.uint8),
        np.array([0.5, -1.5], np.float16),
        np.array(["off", "on"], object),
    ],
    ids=["float32", "int64", "uint8", "float16", "string"],
)
def test_one_hot_matches_numpy(values, axis):
    rng = np.random.default_rng(3)
    depth = 11
    # in range, negative, out of range both ways, a fraction (truncated)
    indices = rng.integers(-14, 15, (4, 6)).astype(np.float32)
    indices[0, 0] = 2.7
    graph = helper.make_graph(
        [helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=axis)],
        "g",
        [helper.make_tensor_value_info("i", helper.np_dtype_to_tensor_dtype(indices.dtype), None)],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(values.dtype), None)],
        [
            numpy_helper.from_array(np.array([depth], np.int64), "d"),
            numpy_helper.from_array(values, "v"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    got = onnx_light.RuntimeSession(model.SerializeToString()).run(None, {"i": indices})[0]
    want = reference(indices, depth, values, axis)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
