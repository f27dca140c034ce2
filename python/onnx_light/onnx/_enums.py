"""The enums of onnx.proto, attached to the message classes as protobuf does
(``TensorProto.FLOAT``, ``TensorProto.DataType.Name(1)``, ``AttributeProto.INTS`` ...)."""

from __future__ import annotations

from onnx_light._core import onnx as _c


class EnumTypeWrapper:
    """A protobuf-style enum: ``Name(number)``, ``Value(name)``, ``keys()``, ``items()``."""

    def __init__(self, name: str, values: dict[str, int]):
        self._name = name
        self._values = dict(values)
        self._names = {}
        for k, v in values.items():
            self._names.setdefault(v, k)

    def Name(self, number: int) -> str:  # noqa: N802 - protobuf's name
        try:
            return self._names[int(number)]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"Enum {self._name} has no name defined for value {number!r}")

    def Value(self, name: str) -> int:  # noqa: N802 - protobuf's name
        try:
            return self._values[name]
        except KeyError:
            raise ValueError(f"Enum {self._name} has no value defined for name {name!r}")

    def keys(self) -> list[str]:
        return list(self._values)

    def values(self) -> list[int]:
        return list(self._values.values())

    def items(self) -> list[tuple[str, int]]:
        return list(self._values.items())

    def __getattr__(self, name: str) -> int:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"<EnumTypeWrapper {self._name}>"


def _data_types() -> dict[str, int]:
    from onnx_light._core import data_types

    return {name: value for value, name, _ in data_types()}


_ATTRIBUTE_TYPES = {
    "UNDEFINED": 0,
    "FLOAT": 1,
    "INT": 2,
    "STRING": 3,
    "TENSOR": 4,
    "GRAPH": 5,
    "SPARSE_TENSOR": 11,
    "TYPE_PROTO": 13,
    "FLOATS": 6,
    "INTS": 7,
    "STRINGS": 8,
    "TENSORS": 9,
    "GRAPHS": 10,
    "SPARSE_TENSORS": 12,
    "TYPE_PROTOS": 14,
}
_DATA_LOCATIONS = {"DEFAULT": 0, "EXTERNAL": 1}
_VALUE_KINDS = {
    "UNDEFINED": 0,
    "TENSOR": 1,
    "SPARSE_TENSOR": 2,
    "SEQUENCE": 3,
    "MAP": 4,
    "OPTIONAL": 5,
}


def _attach(cls, enum_name: str, values: dict[str, int]) -> None:
    setattr(cls, enum_name, EnumTypeWrapper(f"{cls.__name__}.{enum_name}", values))
    for name, value in values.items():
        setattr(cls, name, value)


def install_enums(namespace: dict) -> None:
    _attach(_c.TensorProto, "DataType", _data_types())
    _attach(_c.TensorProto, "DataLocation", _DATA_LOCATIONS)
    _attach(_c.AttributeProto, "AttributeType", _ATTRIBUTE_TYPES)
    _attach(_c.SequenceProto, "DataType", _VALUE_KINDS)
    _attach(_c.OptionalProto, "DataType", _VALUE_KINDS)
    namespace["OperatorStatus"] = EnumTypeWrapper(
        "OperatorStatus", {"EXPERIMENTAL": 0, "STABLE": 1}
    )
    namespace["EXPERIMENTAL"] = 0
    namespace["STABLE"] = 1
