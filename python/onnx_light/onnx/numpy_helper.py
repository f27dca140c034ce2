"""Conversions between numpy arrays and TensorProto / SequenceProto / MapProto /
OptionalProto, with the same results as ``onnx.numpy_helper`` for every element type
(bfloat16, float8, int4/uint4, float4, int2/uint2 through ml_dtypes)."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from . import _mapping
from ._mapping import FLOAT8, FOUR_BIT, SIXTEEN_BIT_IN_INT32, TWO_BIT


def _tp():
    from . import TensorProto

    return TensorProto


def _unpack(data: np.ndarray, dims: tuple[int, ...], bits: int) -> np.ndarray:
    per_byte = 8 // bits
    mask = (1 << bits) - 1
    out = np.empty(data.size * per_byte, dtype=np.uint8)
    for k in range(per_byte):
        out[k::per_byte] = (data >> (k * bits)) & mask
    n = math.prod(dims)
    if n > out.size:
        raise ValueError(
            f"Packed {bits}-bit data ({data.size} bytes, {out.size} elements unpacked) is too "
            f"small for the declared shape {list(dims)} ({n} elements required)."
        )
    return out[:n].reshape(dims)


def _pack(array: np.ndarray, bits: int) -> np.ndarray:
    per_byte = 8 // bits
    flat = np.ascontiguousarray(array).ravel().view(np.uint8) & ((1 << bits) - 1)
    pad = (-flat.size) % per_byte
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
    out = np.zeros(flat.size // per_byte, np.uint8)
    for k in range(per_byte):
        out |= flat[k::per_byte] << (k * bits)
    return out


def tobytes_little_endian(array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array)
    if sys.byteorder == "big" and array.dtype.itemsize > 1:
        array = array.byteswap()
    return array.tobytes()


def to_array(tensor, base_dir: str = "") -> np.ndarray:
    """A numpy array of the tensor's values.

    For raw_data the array views the loaded model (read-only, no copy); typed fields are
    copied. External data is resolved against ``base_dir``.
    """
    TensorProto = _tp()
    if tensor.HasField("segment"):
        raise ValueError("Currently not supporting loading segments.")
    data_type = tensor.data_type
    if data_type == TensorProto.UNDEFINED:
        raise TypeError("The element type in the input tensor is UNDEFINED.")
    if data_type not in _mapping.TENSOR_TYPE_MAP:
        raise ValueError(f"unknown tensor element type {data_type}")
    info = _mapping.TENSOR_TYPE_MAP[data_type]
    np_dtype = info.np_dtype
    dims = tuple(tensor.dims)

    if data_type == TensorProto.STRING:
        return (
            np.asarray([s.decode("utf-8") for s in tensor.string_data]).astype(object).reshape(dims)
        )

    if tensor.data_location == TensorProto.EXTERNAL:
        from .external_data import load_external_data_for_tensor

        load_external_data_for_tensor(tensor, base_dir)

    if tensor.HasField("raw_data"):
        raw = tensor._raw_data_array()
        if data_type in FOUR_BIT:
            return _unpack(raw, dims, 4).view(np_dtype)
        if data_type in TWO_BIT:
            return _unpack(raw, dims, 2).view(np_dtype)
        if raw.size % np_dtype.itemsize:
            raise ValueError(
                f"raw_data of {raw.size} bytes is not a whole number of {np_dtype} elements"
            )
        values = raw.view(np_dtype)
        if sys.byteorder == "big":
            values = values.byteswap()
        return values.reshape(dims)

    if data_type in SIXTEEN_BIT_IN_INT32:
        bits = tensor.int32_data.numpy().view(np.uint32).astype(np.uint16)
        return bits.reshape(dims).view(np_dtype)
    if data_type in FLOAT8 or data_type == TensorProto.BOOL:
        return (
            tensor.int32_data.numpy().view(np.uint32).astype(np.uint8).view(np_dtype).reshape(dims)
        )
    if data_type in FOUR_BIT or data_type in TWO_BIT:
        packed = tensor.int32_data.numpy().view(np.uint32).astype(np.uint8)
        return _unpack(packed, dims, 4 if data_type in FOUR_BIT else 2).view(np_dtype)

    field = getattr(tensor, _mapping.STORAGE_FIELD[info.storage_dtype])
    storage_np = _mapping.TENSOR_TYPE_MAP[info.storage_dtype].np_dtype
    values = np.asarray(field.numpy(), dtype=storage_np)
    if data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
        return values.view(np_dtype).reshape(dims)
    return values.astype(np_dtype).reshape(dims)


def from_array(array: np.ndarray, /, name: str | None = None):
    """A TensorProto holding the array (raw_data for numbers, string_data for strings)."""
    TensorProto = _tp()
    tensor = TensorProto()
    tensor.dims.extend(array.shape)
    if name:
        tensor.name = name
    if array.dtype == object or np.issubdtype(array.dtype, np.str_):
        tensor.data_type = TensorProto.STRING
        for e in array.flatten():
            if isinstance(e, str):
                tensor.string_data.append(e.encode("utf-8"))
            elif isinstance(e, bytes):
                tensor.string_data.append(e)
            else:
                raise NotImplementedError(
                    "Unrecognized object in the object array, expect a string, or array of "
                    f"bytes: {type(e)}"
                )
        return tensor
    data_type = np_dtype_to_tensor_dtype(array.dtype)
    if data_type in FOUR_BIT:
        array = _pack(array, 4)
    elif data_type in TWO_BIT:
        array = _pack(array, 2)
    tensor.raw_data = tobytes_little_endian(array)
    tensor.data_type = data_type
    return tensor


def np_dtype_to_tensor_dtype(np_dtype: np.dtype) -> int:
    try:
        return _mapping.NP_TO_TENSOR[np.dtype(np_dtype)]
    except KeyError:
        raise ValueError(f"numpy dtype {np_dtype} has no ONNX tensor type") from None


def to_list(sequence) -> list[Any]:
    """The elements of a SequenceProto as Python values."""
    from . import SequenceProto

    kind = sequence.elem_type
    if kind == SequenceProto.TENSOR:
        return [to_array(t) for t in sequence.tensor_values]
    if kind == SequenceProto.SPARSE_TENSOR:
        return [to_array(t.values) for t in sequence.sparse_tensor_values]
    if kind == SequenceProto.SEQUENCE:
        return [to_list(s) for s in sequence.sequence_values]
    if kind == SequenceProto.MAP:
        return [to_dict(m) for m in sequence.map_values]
    if kind == SequenceProto.OPTIONAL:
        return [to_optional(o) for o in sequence.optional_values]
    raise TypeError("The element type in the input sequence is not supported.")


def from_list(lst: list[Any], name: str | None = None, dtype: int | None = None):
    """A SequenceProto from a list of arrays, lists, dicts or None (optional)."""
    from . import SequenceProto

    sequence = SequenceProto()
    if name:
        sequence.name = name
    if dtype is None:
        first = lst[0] if lst else None
        if isinstance(first, dict):
            dtype = SequenceProto.MAP
        elif isinstance(first, list):
            dtype = SequenceProto.SEQUENCE
        else:
            dtype = SequenceProto.TENSOR
    sequence.elem_type = dtype
    if lst and not all(type(x) is type(lst[0]) for x in lst):
        raise TypeError("The element type in the input list is not the same for all elements.")
    if dtype == SequenceProto.TENSOR:
        sequence.tensor_values.extend([from_array(np.asarray(x)) for x in lst])
    elif dtype == SequenceProto.SEQUENCE:
        sequence.sequence_values.extend([from_list(x) for x in lst])
    elif dtype == SequenceProto.MAP:
        sequence.map_values.extend([from_dict(x) for x in lst])
    elif dtype == SequenceProto.OPTIONAL:
        sequence.optional_values.extend([from_optional(x) for x in lst])
    else:
        raise TypeError("The element type in the input sequence is not supported.")
    return sequence


def to_dict(map_proto) -> dict[Any, Any]:
    TensorProto = _tp()
    if map_proto.key_type == TensorProto.STRING:
        keys = list(map_proto.string_keys)
    else:
        keys = list(map_proto.keys)
    values = to_list(map_proto.values)
    if len(keys) != len(values):
        raise IndexError(
            f"Length of keys and values for MapProto (map name: {map_proto.name}) are not the "
            "same."
        )
    return dict(zip(keys, values))


def from_dict(dict_: dict[Any, Any], name: str | None = None):
    from . import MapProto

    TensorProto = _tp()
    map_proto = MapProto()
    if name:
        map_proto.name = name
    keys = list(dict_)
    raw_key_type = np.result_type(keys[0]) if keys else np.dtype(np.int64)
    key_type = np_dtype_to_tensor_dtype(raw_key_type) if raw_key_type != object else None
    if keys and isinstance(keys[0], (str, bytes)):
        key_type = TensorProto.STRING
    if key_type not in _mapping.MAP_KEY_TYPES:
        raise TypeError(f"The key type in the input dictionary is not valid: {raw_key_type}")
    map_proto.key_type = key_type
    if key_type == TensorProto.STRING:
        map_proto.string_keys.extend([k.encode() if isinstance(k, str) else k for k in keys])
    else:
        map_proto.keys.extend(int(k) for k in keys)
    map_proto.values.CopyFrom(from_list(list(dict_.values())))
    return map_proto


def to_optional(optional) -> Any:
    from . import OptionalProto

    kind = optional.elem_type
    if kind == OptionalProto.UNDEFINED:
        return None
    if kind == OptionalProto.TENSOR:
        return to_array(optional.tensor_value)
    if kind == OptionalProto.SPARSE_TENSOR:
        return to_array(optional.sparse_tensor_value.values)
    if kind == OptionalProto.SEQUENCE:
        return to_list(optional.sequence_value)
    if kind == OptionalProto.MAP:
        return to_dict(optional.map_value)
    if kind == OptionalProto.OPTIONAL:
        return to_optional(optional.optional_value)
    raise TypeError("The element type in the input optional is not supported.")


def from_optional(opt: Any, name: str | None = None, dtype: int | None = None):
    from . import OptionalProto

    optional = OptionalProto()
    if name:
        optional.name = name
    if dtype is None:
        if opt is None:
            dtype = OptionalProto.UNDEFINED
        elif isinstance(opt, dict):
            dtype = OptionalProto.MAP
        elif isinstance(opt, list):
            dtype = OptionalProto.SEQUENCE
        else:
            dtype = OptionalProto.TENSOR
    optional.elem_type = dtype
    if opt is not None:
        if dtype == OptionalProto.TENSOR:
            optional.tensor_value.CopyFrom(from_array(np.asarray(opt)))
        elif dtype == OptionalProto.SEQUENCE:
            optional.sequence_value.CopyFrom(from_list(opt))
        elif dtype == OptionalProto.MAP:
            optional.map_value.CopyFrom(from_dict(opt))
        elif dtype == OptionalProto.OPTIONAL:
            optional.optional_value.CopyFrom(from_optional(opt))
        else:
            raise TypeError("The element type in the input is not a supported type.")
    return optional
