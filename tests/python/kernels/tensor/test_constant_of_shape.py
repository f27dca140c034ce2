"""ConstantOfShape (src/onnx_light/kernels/tensor/constant_of_shape.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I
from _one_node import check_bad_input

BAD_INPUTS = [
    ("ConstantOfShape", [("s", I)], {}, {"s": np.array([2, -3])}, "negative dimension -3"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
