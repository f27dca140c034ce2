"""Flatten, Reshape, Squeeze, Unsqueeze (src/onnx_light/kernels/tensor/reshape.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, 2])},
        "cannot reshape \\[2, 3\\] \\(6 elements\\) to \\[4, 2\\]",
    ),
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, -1])},
        "cannot infer -1",
    ),
    (
        "Reshape",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([-1, -1])},
        "more than one -1",
    ),
    ("Squeeze", [("a", F), ("s", I)], {}, {"a": f32(2, 3), "s": np.array([0])}, "not 1"),
    (
        "Unsqueeze",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([1, 1])},
        "repeated axis",
    ),
    ("Flatten", [("a", F)], {"axis": 3}, {"a": f32(2, 3)}, "axis out of range"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
