"""Gather, GatherElements (src/onnx_light/kernels/tensor/gather.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Gather",
        [("a", F), ("i", I)],
        {"axis": 1},
        {"a": f32(2, 3), "i": np.array([0, 3])},
        "index 3 is out of range for a dimension of 3",
    ),
    (
        "Gather",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([-3])},
        "index -3 is out of range",
    ),
    (
        "GatherElements",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.zeros(2, np.int64)},
        "must have the rank of data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
