"""Tile (src/onnx_light/kernels/tensor/tile.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "Tile",
        [("a", F), ("r", I)],
        {},
        {"a": f32(2, 3), "r": np.array([2])},
        "repeats has 1 values for rank 2",
    ),
    ("Tile", [("a", F), ("r", I)], {}, {"a": f32(2), "r": np.array([-1])}, "negative repeat"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
