"""Range (src/onnx_light/kernels/tensor/range.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest
from _graphs import F, run_one
from _one_node import check_bad_input, f32

from onnx_light.onnx import TensorProto


def test_range_bfloat16_accumulates_in_the_type():
    bf = md.bfloat16
    feeds = {"a": np.array(1, bf), "b": np.array(4, bf), "c": np.array(0.3, bf)}
    (y,) = run_one(
        "Range",
        [(k, TensorProto.BFLOAT16) for k in "abc"],
        feeds,
        outputs=[("y", TensorProto.BFLOAT16)],
        opset=27,  # 16-bit types since Range-27
    )
    want, v = [], np.array(1, bf)
    for _ in range(int(np.ceil((4 - 1) / float(np.array(0.3, bf))))):
        want.append(v)
        v = np.array(np.float32(v) + np.float32(np.array(0.3, bf)), bf)
    np.testing.assert_array_equal(y.astype(np.float32), np.array(want, np.float32))


BAD_INPUTS = [
    (
        "Range",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": np.array(0, np.float32), "b": np.array(5, np.float32), "c": np.array(0, np.float32)},
        "delta is 0",
    ),
    (
        "Range",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": f32(2), "b": np.array(5, np.float32), "c": np.array(1, np.float32)},
        "input 0 must be a scalar",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
