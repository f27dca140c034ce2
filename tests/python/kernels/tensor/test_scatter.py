"""Scatter, ScatterElements, ScatterND (src/onnx_light/kernels/tensor/scatter.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "ScatterElements",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[2, 0, 0]]), "u": f32(1, 3)},
        "index 2 is out of range",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]]), "u": f32(1)},
        "must end in a dimension",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[1]]), "u": f32(1, 2)},
        "do not match indices and data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
