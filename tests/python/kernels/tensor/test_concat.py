"""Concat (src/onnx_light/kernels/tensor/concat.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import pytest
from _graphs import F
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 0},
        {"a": f32(2, 3), "b": f32(2, 4)},
        "input 1 has shape \\[2, 4\\]",
    ),
    (
        "Concat",
        [("a", F), ("b", F)],
        {"axis": 5},
        {"a": f32(2, 3), "b": f32(2, 3)},
        "axis 5 is out of range for rank 2",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
