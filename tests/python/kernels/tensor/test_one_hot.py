"""OneHot (src/onnx_light/kernels/tensor/one_hot.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError. Fixed-size
values take one typed fill of the off value, then each index's on value; strings the
element loop: both exact against a numpy loop over every axis and item size."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_node
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import helper, numpy_helper


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def test_onehot_negative_and_out_of_range_indices_on_a_middle_axis():
    ind = np.array([[0, -1, 5], [2, -4, -3]], np.int64)
    (y,) = run(
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": ind, "d": np.array(3), "v": np.array([-1.0, 7.0], np.float32)},
        axis=1,
    )
    want = np.full((2, 3, 3), -1.0, np.float32)
    for a in range(2):
        for b in range(3):
            k = ind[a, b] + 3 if ind[a, b] < 0 else ind[a, b]
            if 0 <= k < 3:
                want[a, k, b] = 7.0
    np.testing.assert_array_equal(y, want)


BAD_INPUTS = [
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"opset": 11},
        {"i": np.array([1]), "d": np.array(0), "v": f32(2)},
        "depth must be a positive",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"opset": 11},
        {"i": np.array([1]), "d": np.array([2, 3]), "v": f32(2)},
        "depth must have one",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"opset": 11},
        {"i": np.array([1]), "d": np.array(2), "v": f32(3)},
        "values must be",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"opset": 11, "axis": 3},
        {"i": np.array([1]), "d": np.array(2), "v": f32(2)},
        "axis 3 is out of range",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


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
