"""Equal, Greater, GreaterOrEqual, Less, LessOrEqual (src/onnx_light/kernels/math/compare.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F
from _one_node import check_bad_input, f32, session


def test_legacy_broadcast_of_comparisons_follows_opset_6():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = session("Greater", [("a", F), ("b", F)], out_type=B, opset=6, broadcast=1).run(
        None, {"a": a, "b": np.array([1.0, 1.0, 4.0], np.float32)}
    )
    np.testing.assert_array_equal(y, a > np.array([1.0, 1.0, 4.0], np.float32))


BAD_INPUTS = [
    (
        "Less",
        [("a", F), ("b", F)],
        {"opset": 6, "broadcast": 1, "axis": 1, "out_type": B},
        {"a": f32(2, 3), "b": f32(4)},
        "B \\[4\\] does not fit A \\[2, 3\\] at axis 1",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
