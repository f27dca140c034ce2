"""Pad (src/onnx_light/kernels/tensor/pad.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32, session


def test_pad_modes_against_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = np.array([1, 2, 2, 1])
    for mode, np_mode in (("reflect", "reflect"), ("edge", "edge"), ("wrap", "wrap")):
        (y,) = session("Pad", [("a", F), ("p", I)], mode=mode, opset=19).run(
            None, {"a": x, "p": pads}
        )
        np.testing.assert_array_equal(y, np.pad(x, ((1, 2), (2, 1)), mode=np_mode), err_msg=mode)


BAD_INPUTS = [
    (
        "Pad",
        [("a", F), ("p", I)],
        {},
        {"a": f32(2, 3), "p": np.array([1, 1])},
        "pads has 2 values, expected 4",
    ),
    (
        "Pad",
        [("a", F), ("p", I)],
        {},
        {"a": f32(2, 3), "p": np.array([0, -2, 0, -2])},
        "below zero",
    ),
    (
        "Pad",
        [("a", F), ("p", I)],
        {"mode": "reflect"},
        {"a": f32(1, 3), "p": np.array([1, 0, 0, 0])},
        "reflect needs at least 2",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
