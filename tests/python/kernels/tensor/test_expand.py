"""Expand (src/onnx_light/kernels/tensor/expand.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Expand",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, 3])},
        "cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
