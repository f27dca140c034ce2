"""Identity (src/onnx_light/kernels/tensor/identity.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _narrow import FLOATS, INTS, all_codes

import onnx_light
from onnx_light.onnx import TensorProto, helper


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
