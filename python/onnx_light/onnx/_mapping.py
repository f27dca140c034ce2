"""Tensor element types: numpy dtype, storage field, name (the same table as onnx's)."""

from __future__ import annotations

from typing import NamedTuple

import ml_dtypes
import numpy as np

from onnx_light._core import data_types


class TensorDtypeMap(NamedTuple):
    np_dtype: np.dtype
    storage_dtype: int
    name: str


_V = {name: value for value, name, _ in data_types()}

# Storage types: which typed field of TensorProto holds the values when raw_data is absent.
_STORAGE = {
    "FLOAT": ("FLOAT", np.float32),
    "UINT8": ("INT32", np.uint8),
    "INT8": ("INT32", np.int8),
    "UINT16": ("INT32", np.uint16),
    "INT16": ("INT32", np.int16),
    "INT32": ("INT32", np.int32),
    "INT64": ("INT64", np.int64),
    "BOOL": ("INT32", np.bool_),
    "FLOAT16": ("INT32", np.float16),
    "BFLOAT16": ("INT32", ml_dtypes.bfloat16),
    "DOUBLE": ("DOUBLE", np.float64),
    "COMPLEX64": ("FLOAT", np.complex64),
    "COMPLEX128": ("DOUBLE", np.complex128),
    "UINT32": ("UINT64", np.uint32),
    "UINT64": ("UINT64", np.uint64),
    "STRING": ("STRING", object),
    "FLOAT8E4M3FN": ("INT32", ml_dtypes.float8_e4m3fn),
    "FLOAT8E4M3FNUZ": ("INT32", ml_dtypes.float8_e4m3fnuz),
    "FLOAT8E5M2": ("INT32", ml_dtypes.float8_e5m2),
    "FLOAT8E5M2FNUZ": ("INT32", ml_dtypes.float8_e5m2fnuz),
    "UINT4": ("INT32", ml_dtypes.uint4),
    "INT4": ("INT32", ml_dtypes.int4),
    "FLOAT4E2M1": ("INT32", ml_dtypes.float4_e2m1fn),
    "FLOAT8E8M0": ("INT32", ml_dtypes.float8_e8m0fnu),
    "UINT2": ("INT32", ml_dtypes.uint2),
    "INT2": ("INT32", ml_dtypes.int2),
}

TENSOR_TYPE_MAP: dict[int, TensorDtypeMap] = {
    _V[name]: TensorDtypeMap(np.dtype(dtype), _V[storage], f"TensorProto.{name}")
    for name, (storage, dtype) in _STORAGE.items()
}

STORAGE_FIELD = {
    _V["FLOAT"]: "float_data",
    _V["INT32"]: "int32_data",
    _V["INT64"]: "int64_data",
    _V["DOUBLE"]: "double_data",
    _V["UINT64"]: "uint64_data",
    _V["STRING"]: "string_data",
}

# numpy dtype -> tensor type; object maps to STRING.
NP_TO_TENSOR: dict[np.dtype, int] = {m.np_dtype: t for t, m in TENSOR_TYPE_MAP.items()}

FOUR_BIT = {_V["UINT4"], _V["INT4"], _V["FLOAT4E2M1"]}
TWO_BIT = {_V["UINT2"], _V["INT2"]}
FLOAT8 = {
    _V["FLOAT8E4M3FN"],
    _V["FLOAT8E4M3FNUZ"],
    _V["FLOAT8E5M2"],
    _V["FLOAT8E5M2FNUZ"],
    _V["FLOAT8E8M0"],
}
SIXTEEN_BIT_IN_INT32 = {_V["BFLOAT16"], _V["FLOAT16"], _V["INT16"], _V["UINT16"]}

# The key types a MapProto may have.
MAP_KEY_TYPES = {
    _V[n]
    for n in ("STRING", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64")
}
