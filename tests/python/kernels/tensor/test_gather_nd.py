"""GatherND (src/onnx_light/kernels/tensor/gather_nd.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 3]])},
        "index 3 is out of range",
    ),
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]])},
        "do not fit data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
