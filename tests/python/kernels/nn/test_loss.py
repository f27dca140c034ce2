"""NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (src/onnx_light/kernels/nn/loss.cc): bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

BAD_INPUTS = [
    (
        "NegativeLogLikelihoodLoss",
        [("x", F), ("t", I)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 3])},
        "target 3 is outside \\[0, 3\\)",
    ),
    (
        "NegativeLogLikelihoodLoss",
        [("x", F), ("t", I)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 1, 2])},
        "does not match input",
    ),
    (
        "SoftmaxCrossEntropyLoss",
        [("x", F), ("t", I), ("w", F)],
        {},
        {"x": f32(2, 3), "t": np.array([0, 1]), "w": f32(2)},
        "weight must be \\[3\\]",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
