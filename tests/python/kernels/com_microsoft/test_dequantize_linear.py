"""com.microsoft DequantizeLinear (src/onnx_light/kernels/com_microsoft/dequantize_linear.cc):
ai.onnx DequantizeLinear's kernel at version 1 of ORT's domain: 8-, 16- and 32-bit codes,
per tensor and per axis; exact against numpy and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import light_run, ms_model, ort_run

from onnx_light.onnx import TensorProto

TYPES = {
    np.uint8: TensorProto.UINT8,
    np.int8: TensorProto.INT8,
    np.uint16: TensorProto.UINT16,
    np.int16: TensorProto.INT16,
    np.int32: TensorProto.INT32,
}


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize("per_axis", [False, True])
def test_com_microsoft_dequantize_linear(dtype, per_axis):
    rng = np.random.default_rng(69)
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, (3, 5)).astype(dtype)
    scale = np.array([0.5, 2.0, 0.1], np.float32) if per_axis else np.array(0.25, np.float32)
    if dtype == np.int32:  # ORT takes no int32 zero point but zero
        zp = np.zeros(3 if per_axis else (), dtype)
    else:
        zp = (np.array([1, 0, 3]) if per_axis else np.array(2)).astype(dtype)
    model = ms_model(
        "DequantizeLinear",
        [("x", TYPES[dtype]), ("s", None), ("z", None)],
        [("y", F)],
        {"s": scale, "z": zp},
        axis=0,
    )
    shape = (-1, 1) if per_axis else ()
    want = (x.astype(np.int64) - zp.reshape(shape)).astype(np.float32) * scale.reshape(shape)
    (got,) = light_run(model, {"x": x})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ort_run(model, {"x": x})[0], want)
