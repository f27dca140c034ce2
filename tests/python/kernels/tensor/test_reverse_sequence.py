"""ReverseSequence (src/onnx_light/kernels/tensor/reverse_sequence.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_node
from _one_node import check_bad_input, f32


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def test_reverse_sequence_batch_major():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = run(
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"x": x, "l": np.array([4, 0, 2], np.int64)},
        batch_axis=0,
        time_axis=1,
    )
    want = x.copy()
    want[0] = x[0, ::-1]
    want[2, :2] = x[2, 1::-1]
    np.testing.assert_array_equal(y, want)


BAD_INPUTS = [
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"opset": 11},
        {"x": f32(3, 2), "l": np.array([4, 1])},
        "sequence length 4 is outside",
    ),
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"opset": 11},
        {"x": f32(3, 2), "l": np.array([1])},
        "sequence_lens must be \\[2\\]",
    ),
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"opset": 11, "batch_axis": 2},
        {"x": f32(3, 2), "l": np.array([1, 1])},
        "batch_axis and time_axis",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
