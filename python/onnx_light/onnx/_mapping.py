"""Tensor element types: numpy dtype, storage field, name (the same table as onnx's).

ml_dtypes (bfloat16, float8, int4, ...) is imported the first time one of its types is
looked up, not when onnx_light is: its import costs more than the rest of onnx_light's, and
a float model never needs it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from onnx_light._core import data_types


class TensorDtypeMap(NamedTuple):
    np_dtype: np.dtype
    storage_dtype: int
    name: str


_V = {name: value for value, name, _ in data_types()}

# Storage types: which typed field of TensorProto holds the values when raw_data is absent;
# a str names an ml_dtypes type.
_STORAGE: dict[str, tuple[str, Any]] = {
    "FLOAT": ("FLOAT", np.float32),
    "UINT8": ("INT32", np.uint8),
    "INT8": ("INT32", np.int8),
    "UINT16": ("INT32", np.uint16),
    "INT16": ("INT32", np.int16),
    "INT32": ("INT32", np.int32),
    "INT64": ("INT64", np.int64),
    "BOOL": ("INT32", np.bool_),
    "FLOAT16": ("INT32", np.float16),
    "BFLOAT16": ("INT32", "bfloat16"),
    "DOUBLE": ("DOUBLE", np.float64),
    "COMPLEX64": ("FLOAT", np.complex64),
    "COMPLEX128": ("DOUBLE", np.complex128),
    "UINT32": ("UINT64", np.uint32),
    "UINT64": ("UINT64", np.uint64),
    "STRING": ("STRING", object),
    "FLOAT8E4M3FN": ("INT32", "float8_e4m3fn"),
    "FLOAT8E4M3FNUZ": ("INT32", "float8_e4m3fnuz"),
    "FLOAT8E5M2": ("INT32", "float8_e5m2"),
    "FLOAT8E5M2FNUZ": ("INT32", "float8_e5m2fnuz"),
    "UINT4": ("INT32", "uint4"),
    "INT4": ("INT32", "int4"),
    "FLOAT4E2M1": ("INT32", "float4_e2m1fn"),
    "FLOAT8E8M0": ("INT32", "float8_e8m0fnu"),
    "UINT2": ("INT32", "uint2"),
    "INT2": ("INT32", "int2"),
}
_NAME_OF = {_V[name]: name for name in _STORAGE}


class _TypeMap(Mapping):
    """Type code -> TensorDtypeMap, each entry made when first asked for (keys and
    membership need no dtype, so they import nothing)."""

    def __init__(self) -> None:
        self._made: dict[int, TensorDtypeMap] = {}

    def __getitem__(self, code: int) -> TensorDtypeMap:
        found = self._made.get(code)
        if found is None:
            name = _NAME_OF[code]  # KeyError for a code that is no type, as a dict
            storage, dtype = _STORAGE[name]
            if isinstance(dtype, str):
                import ml_dtypes

                dtype = getattr(ml_dtypes, dtype)
            found = self._made[code] = TensorDtypeMap(
                np.dtype(dtype), _V[storage], f"TensorProto.{name}"
            )
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(_NAME_OF)

    def __len__(self) -> int:
        return len(_NAME_OF)

    def __contains__(self, code: object) -> bool:
        return code in _NAME_OF


TENSOR_TYPE_MAP: Mapping[int, TensorDtypeMap] = _TypeMap()

STORAGE_FIELD = {
    _V["FLOAT"]: "float_data",
    _V["INT32"]: "int32_data",
    _V["INT64"]: "int64_data",
    _V["DOUBLE"]: "double_data",
    _V["UINT64"]: "uint64_data",
    _V["STRING"]: "string_data",
}


def __getattr__(name: str) -> Any:
    # NP_TO_TENSOR: numpy dtype -> tensor type (object maps to STRING). Made on first use:
    # it holds every type, ml_dtypes' included.
    if name == "NP_TO_TENSOR":
        table = {m.np_dtype: t for t, m in TENSOR_TYPE_MAP.items()}
        globals()["NP_TO_TENSOR"] = table
        return table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
