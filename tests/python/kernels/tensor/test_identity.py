"""Identity (src/onnx_light/kernels/tensor/identity.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

FLOATS = {
    TensorProto.FLOAT8E4M3FN: md.float8_e4m3fn,
    TensorProto.FLOAT8E4M3FNUZ: md.float8_e4m3fnuz,
    TensorProto.FLOAT8E5M2: md.float8_e5m2,
    TensorProto.FLOAT8E5M2FNUZ: md.float8_e5m2fnuz,
    TensorProto.FLOAT4E2M1: md.float4_e2m1fn,
}


INTS = {
    TensorProto.INT4: md.int4,
    TensorProto.UINT4: md.uint4,
    TensorProto.INT2: md.int2,
    TensorProto.UINT2: md.uint2,
}


def all_codes(dtype):
    bits = 4 if dtype in (md.float4_e2m1fn, md.int4, md.uint4) else 8
    if dtype in (md.int2, md.uint2):
        bits = 2
    return np.arange(1 << bits, dtype=np.uint8).view(dtype)


@pytest.mark.parametrize("onnx_type", [TensorProto.INT4, TensorProto.UINT2, TensorProto.FLOAT4E2M1])
@pytest.mark.parametrize("n", [0, 1, 3, 7, 8, 1001])
def test_packed_tensors_round_trip_at_the_python_boundary(onnx_type, n):
    dtype = FLOATS.get(onnx_type) or INTS[onnx_type]
    codes = all_codes(dtype)
    x = np.resize(codes, n).reshape(n, 1)
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx_type, None)],
        [helper.make_tensor_value_info("y", onnx_type, None)],
    )
    s = onnx_light.RuntimeSession(helper.make_model(graph))
    got = s.run(None, {"x": x})[0]
    assert got.dtype == dtype and got.shape == (n, 1)
    np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))
