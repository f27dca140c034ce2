"""OneHot (src/onnx_light/kernels/tensor/one_hot.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_node
from _one_node import check_bad_input, f32


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
