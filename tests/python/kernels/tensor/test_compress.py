"""Compress (src/onnx_light/kernels/tensor/compress.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F, run_node
from _one_node import check_bad_input, f32


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def test_compress_with_a_short_condition_and_without_axis():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = run("Compress", [("x", F), ("c", B)], {"x": x, "c": np.array([0, 1, 1], bool)}, axis=1)
    np.testing.assert_array_equal(y, x[:, [1, 2]])
    (y,) = run("Compress", [("x", F), ("c", B)], {"x": x, "c": np.array([1, 0, 0, 1, 1], bool)})
    np.testing.assert_array_equal(y, x.ravel()[[0, 3, 4]])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16, np.str_])
@pytest.mark.parametrize("shape,axis", [((10000, 16), 0), ((3, 100, 7), 1), ((5, 300), 1)])
def test_compress_slices_match_numpy(shape, axis, dtype):
    x = np.random.default_rng(6).integers(-9, 9, shape)
    x = x.astype(str) if dtype is np.str_ else x.astype(dtype)
    c = np.random.default_rng(7).integers(0, 2, shape[axis]).astype(bool)
    elem = {np.float32: F, np.int64: 7, np.uint8: 2, np.float16: 10, np.str_: 8}[dtype]
    (y,) = run(
        "Compress", [("x", elem), ("c", B)], {"x": x, "c": c}, outs=(("y", elem),), axis=axis
    )
    np.testing.assert_array_equal(y, np.compress(c, x, axis=axis))


BAD_INPUTS = [
    (
        "Compress",
        [("x", F), ("c", B)],
        {"opset": 11, "axis": 0},
        {"x": f32(2, 2), "c": np.ones(5, bool)},
        "more than the 2",
    ),
    (
        "Compress",
        [("x", F), ("c", B)],
        {"opset": 11},
        {"x": f32(2, 2), "c": np.ones((1, 1), bool)},
        "condition must be 1-D",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
