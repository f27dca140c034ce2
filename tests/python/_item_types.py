"""Element types that exercise every item size of the data-movement kernels (1, 2, 4 and 8
bytes, bool and strings), with their ONNX codes, and random values of each."""

from __future__ import annotations

import numpy as np

from onnx_light.onnx import TensorProto

TYPES = {
    np.float32: TensorProto.FLOAT,
    np.float16: TensorProto.FLOAT16,
    np.uint8: TensorProto.UINT8,
    np.int64: TensorProto.INT64,
    np.bool_: TensorProto.BOOL,
    np.str_: TensorProto.STRING,
}


def values(shape, dtype, seed=0):
    """Integers in [-50, 50) as `dtype` (strings of them for np.str_)."""
    x = np.random.default_rng(seed).integers(-50, 50, shape)
    return x.astype(str) if dtype is np.str_ else x.astype(dtype)
