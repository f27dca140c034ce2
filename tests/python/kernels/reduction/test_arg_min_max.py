"""ArgMax, ArgMin (src/onnx_light/kernels/reduction/arg_min_max.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    ("ArgMax", [("a", F)], {"axis": 1, "out_type": I}, {"a": f32(2, 0)}, "empty axis"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
