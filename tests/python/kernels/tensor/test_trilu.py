"""Trilu (src/onnx_light/kernels/tensor/trilu.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import pytest
from _graphs import F
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    ("Trilu", [("a", F)], {}, {"a": f32(3)}, "rank must be >= 2"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
