"""ONNX model objects without the ``onnx`` package.

The everyday surface of ``onnx``: message classes (``ModelProto``, ``GraphProto``,
``TensorProto`` ...), ``load``/``save``, ``load_from_string``, and the ``helper`` and
``numpy_helper`` modules. Messages are onnx-light's own C++ classes, read and written with
its own protobuf wire-format code; loading a file maps it and tensor payloads view it.
"""

from __future__ import annotations

import os
from typing import IO, Any

from onnx_light._core import onnx as _c

from ._enums import install_enums

AttributeProto = _c.AttributeProto
DeviceConfigurationProto = _c.DeviceConfigurationProto
FunctionProto = _c.FunctionProto
GraphProto = _c.GraphProto
IntIntListEntryProto = _c.IntIntListEntryProto
MapProto = _c.MapProto
ModelProto = _c.ModelProto
NodeDeviceConfigurationProto = _c.NodeDeviceConfigurationProto
NodeProto = _c.NodeProto
OperatorSetIdProto = _c.OperatorSetIdProto
OptionalProto = _c.OptionalProto
SequenceProto = _c.SequenceProto
ShardedDimProto = _c.ShardedDimProto
ShardingSpecProto = _c.ShardingSpecProto
SimpleShardedDimProto = _c.SimpleShardedDimProto
SparseTensorProto = _c.SparseTensorProto
StringStringEntryProto = _c.StringStringEntryProto
TensorAnnotation = _c.TensorAnnotation
TensorProto = _c.TensorProto
TensorShapeProto = _c.TensorShapeProto
TrainingInfoProto = _c.TrainingInfoProto
TypeProto = _c.TypeProto
ValueInfoProto = _c.ValueInfoProto

install_enums(globals())


# helper, numpy_helper and external_data are imported when first used (module __getattr__
# below): `import onnx_light` runs a model without them.
_SUBMODULES = ("helper", "numpy_helper", "external_data")
_FROM_EXTERNAL_DATA = ("convert_model_to_external_data", "write_external_data_tensors")


def __getattr__(name: str) -> Any:
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FROM_EXTERNAL_DATA:
        return getattr(importlib.import_module(f"{__name__}.external_data"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


IR_VERSION = 13
# The newest default-domain opset that onnx 1.22 knows; make_model uses it by default.
ONNX_OPSET_VERSION = 27

_PathLike = str | os.PathLike


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike))


def _read_bytes(f: IO[bytes] | _PathLike | bytes) -> bytes:
    if isinstance(f, (bytes, bytearray, memoryview)):
        return bytes(f)
    if _is_path(f):
        with open(f, "rb") as fh:
            return fh.read()
    if hasattr(f, "read"):
        return f.read()
    raise TypeError(f"expected a path, bytes or a readable file object, got {type(f).__name__}")


def load_model(
    f: IO[bytes] | _PathLike,
    format: Any = None,  # noqa: A002 - the onnx package's name
    load_external_data: bool = True,
) -> ModelProto:
    """Loads a ModelProto from a path (memory-mapped) or a readable file object.

    External data (``data_location = EXTERNAL``) is resolved against the model's folder
    and viewed in place; paths that leave that folder are refused with ValueError.
    """
    if format not in (None, "protobuf"):
        raise ValueError(f"unsupported format {format!r}: only 'protobuf' is supported")
    if _is_path(f):
        return _c.load_model(os.fspath(f), load_external_data)
    model = load_model_from_string(_read_bytes(f))
    name = getattr(f, "name", None)
    if load_external_data and isinstance(name, str) and os.path.exists(name):
        _c.load_external_data(model, os.path.dirname(os.path.abspath(name)))
    return model


def load_model_from_string(s: bytes, format: Any = None) -> ModelProto:  # noqa: A002
    """Parses a serialized ModelProto. ValueError on malformed bytes."""
    if format not in (None, "protobuf"):
        raise ValueError(f"unsupported format {format!r}: only 'protobuf' is supported")
    return ModelProto.FromString(s)


def load_tensor(f: IO[bytes] | _PathLike, format: Any = None) -> TensorProto:  # noqa: A002
    if _is_path(f):
        return _c.load_TensorProto(os.fspath(f))
    return TensorProto.FromString(_read_bytes(f))


def load_tensor_from_string(s: bytes, format: Any = None) -> TensorProto:  # noqa: A002
    return TensorProto.FromString(s)


def save_model(
    proto: ModelProto | bytes,
    f: IO[bytes] | _PathLike,
    format: Any = None,  # noqa: A002
    *,
    save_as_external_data: bool = False,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Saves a ModelProto (or its serialized bytes) to a path or a writable file object.

    With ``save_as_external_data`` the tensors of at least ``size_threshold`` bytes are
    written to ``location`` (default ``<model file name>.data``) beside the model.
    """
    if format not in (None, "protobuf"):
        raise ValueError(f"unsupported format {format!r}: only 'protobuf' is supported")
    if isinstance(proto, (bytes, bytearray)):
        proto = load_model_from_string(bytes(proto))
    if save_as_external_data:
        if not _is_path(f):
            raise ValueError("save_as_external_data needs a path to know where to put the data")
        path = os.fspath(f)
        proto = ModelProto.FromString(proto.SerializeToString())
        from .external_data import convert_model_to_external_data

        convert_model_to_external_data(
            proto,
            all_tensors_to_one_file=all_tensors_to_one_file,
            location=location or os.path.basename(path) + ".data",
            size_threshold=size_threshold,
            convert_attribute=convert_attribute,
        )
        from .external_data import write_external_data_tensors

        write_external_data_tensors(proto, os.path.dirname(os.path.abspath(path)))
    if _is_path(f):
        _c.save_model(proto, os.fspath(f))
    else:
        f.write(proto.SerializeToString())


def save_tensor(proto: TensorProto, f: IO[bytes] | _PathLike) -> None:
    if _is_path(f):
        _c.save_TensorProto(proto, os.fspath(f))
    else:
        f.write(proto.SerializeToString())


load = load_model
load_from_string = load_model_from_string
save = save_model

__all__ = [
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IR_VERSION",
    "IntIntListEntryProto",
    "MapProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "ONNX_OPSET_VERSION",
    "OperatorSetIdProto",
    "OptionalProto",
    "SequenceProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "helper",
    "load",
    "load_from_string",
    "load_model",
    "load_model_from_string",
    "load_tensor",
    "load_tensor_from_string",
    "numpy_helper",
    "save",
    "save_model",
    "save_tensor",
]
