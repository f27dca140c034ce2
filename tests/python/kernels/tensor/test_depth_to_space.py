"""DepthToSpace, SpaceToDepth (src/onnx_light/kernels/tensor/depth_to_space.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import pytest
from _graphs import F
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "DepthToSpace",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 3, 2, 2)},
        "not divisible by blocksize",
    ),
    (
        "SpaceToDepth",
        [("a", F)],
        {"blocksize": 2},
        {"a": f32(1, 1, 3, 2)},
        "must be divisible by blocksize",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
