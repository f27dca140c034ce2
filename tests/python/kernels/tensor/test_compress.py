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
