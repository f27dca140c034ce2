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


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
@pytest.mark.parametrize("size", [1, 63, 1000])
def test_bitwise_not_every_integer_type(dtype, size):
    # The complement taken as bytes (vector clones): exactly numpy's invert, odd sizes too.
    from _graphs import node_model

    import onnx_light

    info = np.iinfo(dtype)
    x = np.random.default_rng(size).integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    x[0] = info.min
    elem = {
        np.int8: TensorProto.INT8,
        np.int16: TensorProto.INT16,
        np.int32: TensorProto.INT32,
        np.int64: TensorProto.INT64,
        np.uint8: TensorProto.UINT8,
        np.uint16: TensorProto.UINT16,
        np.uint32: TensorProto.UINT32,
        np.uint64: TensorProto.UINT64,
    }[dtype]
    model = node_model("BitwiseNot", [("x", elem)], [("y", elem)], 18)
    (y,) = onnx_light.RuntimeSession(model).run(None, {"x": x})
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, np.invert(x))
