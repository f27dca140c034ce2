"""com.microsoft QuantizeLinear (src/onnx_light/kernels/com_microsoft/quantize_linear.cc):
ai.onnx QuantizeLinear's kernel at version 1 of ORT's domain: 8- and 16-bit types, per
tensor and per axis, with and without a zero point; exact against numpy (round half to
even, saturate) and ONNX Runtime."""

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
}


def reference(x, scale, zp, axis, dtype):
    shape = [1] * x.ndim
    if np.ndim(scale):
        shape[axis] = -1
    s = np.reshape(scale, shape).astype(np.float32)
    z = np.reshape(zp, shape).astype(np.float64)
    info = np.iinfo(dtype)
    return np.clip(np.rint(x / s) + z, info.min, info.max).astype(dtype)


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize("per_axis", [False, True])
def test_com_microsoft_quantize_linear(dtype, per_axis):
    rng = np.random.default_rng(68)
    x = (rng.standard_normal((2, 3, 4)) * 300).astype(np.float32)
    x[0, 0, :2] = [2.5, -3.5]  # ties round to even
    scale = np.array([0.5, 2.0, 7.0], np.float32) if per_axis else np.array(0.5, np.float32)
    zp = (np.array([1, 0, 3]) if per_axis else np.array(3)).astype(dtype)
    inits = {"s": scale, "z": zp}
    model = ms_model(
        "QuantizeLinear", [("x", F), ("s", None), ("z", None)], [("y", TYPES[dtype])], inits, axis=1
    )
    want = reference(x, scale, zp, 1, dtype)
    (got,) = light_run(model, {"x": x})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ort_run(model, {"x": x})[0], want)


def test_com_microsoft_quantize_linear_without_zero_point_is_uint8():
    x = np.array([-1.0, 0.4, 0.6, 300.0], np.float32)
    model = ms_model(
        "QuantizeLinear",
        [("x", F), ("s", None), ("", None)],
        [("y", TensorProto.UINT8)],
        {"s": np.array(1.0, np.float32)},
    )
    (got,) = light_run(model, {"x": x})
    np.testing.assert_array_equal(got, np.array([0, 0, 1, 255], np.uint8))
    np.testing.assert_array_equal(ort_run(model, {"x": x})[0], got)
