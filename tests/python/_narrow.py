"""The narrow element types (float8, float4, 2- and 4-bit integers) as numpy sees them
through ml_dtypes (the oracle of their codecs), for the Cast, Identity and QuantizeLinear
tests."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np

from onnx_light.onnx import TensorProto

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


def same_codes(got, want):
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    ok = both_nan | (got.view(np.uint8) == want.view(np.uint8))
    return ok
