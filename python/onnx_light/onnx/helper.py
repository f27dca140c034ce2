"""Builders for ONNX messages, with the names and behaviour of ``onnx.helper``."""

from __future__ import annotations

import collections.abc
import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    MapProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
    _mapping,
    numpy_helper,
)


def make_node(
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    name: str | None = None,
    doc_string: str | None = None,
    domain: str | None = None,
    overload: str | None = None,
    **kwargs: Any,
) -> NodeProto:
    """A NodeProto; keyword arguments become attributes (sorted by name; None skipped)."""
    node = NodeProto()
    node.op_type = op_type
    node.input.extend(inputs)
    node.output.extend(outputs)
    if name:
        node.name = name
    if doc_string:
        node.doc_string = doc_string
    if domain is not None:
        node.domain = domain
    if overload is not None:
        node.overload = overload
    if kwargs:
        node.attribute.extend(
            make_attribute(key, value) for key, value in sorted(kwargs.items()) if value is not None
        )
    return node


def make_operatorsetid(domain: str, version: int) -> OperatorSetIdProto:
    opset = OperatorSetIdProto()
    opset.domain = domain
    opset.version = version
    return opset


make_opsetid = make_operatorsetid


def make_graph(
    nodes: Sequence[NodeProto],
    name: str,
    inputs: Sequence[ValueInfoProto],
    outputs: Sequence[ValueInfoProto],
    initializer: Sequence[TensorProto] | None = None,
    doc_string: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
    sparse_initializer: Sequence[SparseTensorProto] | None = None,
) -> GraphProto:
    graph = GraphProto()
    graph.node.extend(nodes)
    graph.name = name
    graph.input.extend(inputs)
    graph.output.extend(outputs)
    graph.initializer.extend(initializer or [])
    graph.sparse_initializer.extend(sparse_initializer or [])
    graph.value_info.extend(value_info or [])
    if doc_string:
        graph.doc_string = doc_string
    return graph


def make_function(
    domain: str,
    fname: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    nodes: Sequence[NodeProto],
    opset_imports: Sequence[OperatorSetIdProto],
    attributes: Sequence[str] | None = None,
    attribute_protos: Sequence[AttributeProto] | None = None,
    doc_string: str | None = None,
    overload: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
) -> FunctionProto:
    f = FunctionProto()
    f.domain = domain
    f.name = fname
    f.input.extend(inputs)
    f.output.extend(outputs)
    f.node.extend(nodes)
    f.opset_import.extend(opset_imports)
    f.attribute.extend(attributes or [])
    f.attribute_proto.extend(attribute_protos or [])
    if doc_string:
        f.doc_string = doc_string
    if overload is not None:
        f.overload = overload
    f.value_info.extend(value_info or [])
    return f


def make_model(graph: GraphProto, **kwargs: Any) -> ModelProto:
    """A ModelProto at onnx-light's IR version; without ``opset_imports`` the default domain
    is imported at the newest opset onnx 1.22 knows."""
    from . import IR_VERSION, ONNX_OPSET_VERSION

    model = ModelProto()
    model.ir_version = IR_VERSION
    model.graph.CopyFrom(graph)
    opset_imports = kwargs.pop("opset_imports", None)
    if opset_imports is not None:
        model.opset_import.extend(opset_imports)
    else:
        model.opset_import.add().version = ONNX_OPSET_VERSION
    functions = kwargs.pop("functions", None)
    if functions is not None:
        model.functions.extend(functions)
    for key, value in kwargs.items():
        setattr(model, key, value)
    return model


def set_metadata_props(proto: Any, dict_value: dict[str, str]) -> None:
    del proto.metadata_props[:]
    for key, value in dict_value.items():
        entry = proto.metadata_props.add()
        entry.key = key
        entry.value = value


def set_model_props(model: ModelProto, dict_value: dict[str, str]) -> None:
    set_metadata_props(model, dict_value)


def _to_bytes(value: str | bytes) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def _saturate_float8(values: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    # Out-of-range values and infinities clamp to the largest finite value; NaN stays NaN.
    import ml_dtypes  # here, not at import: onnx_light imports this module

    finfo = ml_dtypes.finfo(np_dtype)
    return np.clip(values, finfo.min, finfo.max).astype(np_dtype)


def _float8e8m0_round_up(values: np.ndarray) -> np.ndarray:
    # Saturating, rounding up to the next power of two: E8M0 holds 2**(e - 127).
    x = np.abs(np.asarray(values, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.ceil(np.log2(x))
    biased = np.clip(e + 127, 0, 254)
    biased = np.where(np.isnan(x), 255, np.where(np.isinf(x), 254, biased))
    biased = np.where(x == 0, 0, biased)
    return biased.astype(np.uint8).view(_mapping.TENSOR_TYPE_MAP[TensorProto.FLOAT8E8M0].np_dtype)


def make_tensor(
    name: str,
    data_type: int,
    dims: Sequence[int],
    vals: Any,
    raw: bool = False,
) -> TensorProto:
    """A TensorProto; with ``raw`` the values are bytes (or an array) for raw_data, otherwise
    they go to the typed field that ONNX stores the type in."""
    tensor = TensorProto()
    tensor.data_type = data_type
    tensor.name = name
    tensor.dims.extend(dims)
    if data_type == TensorProto.STRING and raw:
        raise TypeError("Can not use raw_data to store string type.")
    np_dtype = tensor_dtype_to_np_dtype(data_type)
    count = math.prod(dims)
    if raw:
        if data_type in _mapping.FOUR_BIT:
            expected = math.ceil(count / 2)
        elif data_type in _mapping.TWO_BIT:
            expected = math.ceil(count / 4)
        else:
            expected = np_dtype.itemsize * count
        if isinstance(vals, np.ndarray):
            if data_type in _mapping.FOUR_BIT:
                vals = numpy_helper._pack(vals, 4)
            elif data_type in _mapping.TWO_BIT:
                vals = numpy_helper._pack(vals, 2)
            raw_data = numpy_helper.tobytes_little_endian(vals)
        elif isinstance(vals, bytes):
            raw_data = vals
        else:
            raise TypeError(f"Raw data must be bytes or numpy.ndarray, but got {type(vals)}.")
        if len(raw_data) != expected:
            raise ValueError(
                "Raw data size does not match tensor's size. Expected "
                f"{expected} bytes, but got {len(raw_data)} bytes."
            )
        tensor.raw_data = raw_data
        return tensor

    if data_type == TensorProto.STRING:
        values = np.array(vals).flatten()
        if len(values):
            values = [_to_bytes(v) for v in values.tolist()]
    elif data_type in _mapping.FLOAT8 and data_type != TensorProto.FLOAT8E8M0:
        values = _saturate_float8(np.asarray(vals), np_dtype).flatten()
    elif data_type == TensorProto.FLOAT8E8M0:
        values = _float8e8m0_round_up(vals).flatten()
    else:
        values = np.asarray(vals, dtype=np_dtype).flatten()
    if len(values) != count:
        raise ValueError(
            f"Number of values ({len(values)}) does not match tensor dimensions requiring "
            f"{count} elements."
        )
    if data_type == TensorProto.COMPLEX128:
        values = values.view(np.float64)
    elif data_type == TensorProto.COMPLEX64:
        values = values.view(np.float32)
    elif data_type in (TensorProto.BFLOAT16, TensorProto.FLOAT16):
        values = values.view(np.uint16).astype(np.int32)
    elif data_type in _mapping.FLOAT8:
        values = values.view(np.uint8).astype(np.int32)
    elif data_type in _mapping.FOUR_BIT:
        values = numpy_helper._pack(values, 4).astype(np.int32)
    elif data_type in _mapping.TWO_BIT:
        values = numpy_helper._pack(values, 2).astype(np.int32)
    elif data_type == TensorProto.BOOL:
        values = values.astype(np.int32)
    field = tensor_dtype_to_field(data_type)
    storage = _mapping.TENSOR_TYPE_MAP[tensor_dtype_to_storage_tensor_dtype(data_type)].np_dtype
    if data_type != TensorProto.STRING:
        values = np.ascontiguousarray(np.asarray(values).astype(storage, copy=False))
    getattr(tensor, field).extend(values)
    return tensor


def make_sparse_tensor(
    values: TensorProto, indices: TensorProto, dims: Sequence[int]
) -> SparseTensorProto:
    sparse = SparseTensorProto()
    sparse.values.CopyFrom(values)
    sparse.indices.CopyFrom(indices)
    sparse.dims.extend(dims)
    return sparse


def make_sequence(name: str, elem_type: int, values: Sequence[Any]) -> SequenceProto:
    sequence = SequenceProto()
    sequence.name = name
    sequence.elem_type = elem_type
    if elem_type == SequenceProto.UNDEFINED:
        return sequence
    field = {
        SequenceProto.TENSOR: "tensor_values",
        SequenceProto.SPARSE_TENSOR: "sparse_tensor_values",
        SequenceProto.SEQUENCE: "sequence_values",
        SequenceProto.MAP: "map_values",
        SequenceProto.OPTIONAL: "optional_values",
    }.get(elem_type)
    if field is None:
        raise TypeError("The element type in the input sequence is not supported.")
    getattr(sequence, field).extend(values)
    return sequence


def make_map(name: str, key_type: int, keys: list[Any], values: SequenceProto) -> MapProto:
    map_proto = MapProto()
    if key_type not in _mapping.MAP_KEY_TYPES:
        raise TypeError(f"The key type in the input map is not valid: {key_type}")
    map_proto.name = name
    map_proto.key_type = key_type
    if key_type == TensorProto.STRING:
        map_proto.string_keys.extend([_to_bytes(k) for k in keys])
    else:
        map_proto.keys.extend(keys)
    map_proto.values.CopyFrom(values)
    return map_proto


def make_optional(name: str, elem_type: int, value: Any | None) -> OptionalProto:
    optional = OptionalProto()
    optional.name = name
    optional.elem_type = elem_type
    if elem_type == OptionalProto.UNDEFINED:
        return optional
    field = {
        OptionalProto.TENSOR: "tensor_value",
        OptionalProto.SPARSE_TENSOR: "sparse_tensor_value",
        OptionalProto.SEQUENCE: "sequence_value",
        OptionalProto.MAP: "map_value",
        OptionalProto.OPTIONAL: "optional_value",
    }.get(elem_type)
    if field is None:
        raise TypeError("The element type in the input optional is not supported.")
    getattr(optional, field).CopyFrom(value)
    return optional


_ATTR_LIST_TYPES = (
    (numbers.Integral, AttributeProto.INTS, "ints"),
    (numbers.Real, AttributeProto.FLOATS, "floats"),
    ((str, bytes), AttributeProto.STRINGS, "strings"),
    (TensorProto, AttributeProto.TENSORS, "tensors"),
    (SparseTensorProto, AttributeProto.SPARSE_TENSORS, "sparse_tensors"),
    (GraphProto, AttributeProto.GRAPHS, "graphs"),
    (TypeProto, AttributeProto.TYPE_PROTOS, "type_protos"),
)


def make_attribute(
    key: str, value: Any, doc_string: str | None = None, attr_type: int | None = None
) -> AttributeProto:
    """An AttributeProto whose type is inferred from the Python value (or ``attr_type``)."""
    attr = AttributeProto()
    attr.name = key
    if doc_string:
        attr.doc_string = doc_string
    if isinstance(value, numbers.Integral):
        attr.i = int(value)
        attr.type = AttributeProto.INT
    elif isinstance(value, numbers.Real):
        attr.f = float(value)
        attr.type = AttributeProto.FLOAT
    elif isinstance(value, (str, bytes)):
        attr.s = _to_bytes(value)
        attr.type = AttributeProto.STRING
    elif isinstance(value, TensorProto):
        attr.t.CopyFrom(value)
        attr.type = AttributeProto.TENSOR
    elif isinstance(value, SparseTensorProto):
        attr.sparse_tensor.CopyFrom(value)
        attr.type = AttributeProto.SPARSE_TENSOR
    elif isinstance(value, GraphProto):
        attr.g.CopyFrom(value)
        attr.type = AttributeProto.GRAPH
    elif isinstance(value, TypeProto):
        attr.tp.CopyFrom(value)
        attr.type = AttributeProto.TYPE_PROTO
    elif isinstance(value, collections.abc.Iterable):
        value = list(value)
        if not value and attr_type is None:
            raise ValueError(f"Could not infer attribute `{key}` type from empty iterator")
        if attr_type is None:
            kinds = {type(v) for v in value}
            for py_type, enum, _ in _ATTR_LIST_TYPES:
                if all(issubclass(t, py_type) for t in kinds):
                    attr_type = enum
                    break
            if attr_type is None:
                raise ValueError(
                    "Could not infer the attribute type from the elements of the passed "
                    "Iterable value."
                )
        for _, enum, field in _ATTR_LIST_TYPES:
            if attr_type == enum:
                if field == "strings":
                    value = [_to_bytes(v) for v in value]
                getattr(attr, field).extend(value)
                attr.type = enum
                break
        else:
            raise ValueError(f"unsupported list attribute type {attr_type}")
    else:
        raise TypeError(f"'{value}' is not an accepted attribute value.")
    if attr_type is not None and attr.type != attr_type:
        raise TypeError(
            f"Inferred attribute type {attr.type} mismatched with specified type {attr_type}"
        )
    return attr


def make_attribute_ref(
    name: str, attr_type: int, doc_string: str | None = None, *, ref_attr_name: str | None = None
) -> AttributeProto:
    if ref_attr_name is None:
        ref_attr_name = name
    if not ref_attr_name:
        raise ValueError("ref_attr_name must be non-empty")
    attr = AttributeProto()
    attr.name = name
    attr.type = attr_type
    attr.ref_attr_name = ref_attr_name
    if doc_string:
        attr.doc_string = doc_string
    return attr


def get_attribute_value(attr: AttributeProto) -> Any:
    if attr.ref_attr_name:
        raise ValueError(f"Cannot get value of reference attribute: {attr}")
    scalar = {
        AttributeProto.FLOAT: "f",
        AttributeProto.INT: "i",
        AttributeProto.STRING: "s",
        AttributeProto.TENSOR: "t",
        AttributeProto.SPARSE_TENSOR: "sparse_tensor",
        AttributeProto.GRAPH: "g",
        AttributeProto.TYPE_PROTO: "tp",
    }
    if attr.type in scalar:
        return getattr(attr, scalar[attr.type])
    for _, enum, field in _ATTR_LIST_TYPES:
        if attr.type == enum:
            return list(getattr(attr, field))
    if attr.type == AttributeProto.UNDEFINED:
        return None
    raise ValueError(f"Unsupported ONNX attribute: {attr}")


def get_node_attr_value(node: NodeProto, attr_name: str) -> Any:
    matching = [a for a in node.attribute if a.name == attr_name]
    if len(matching) > 1:
        raise ValueError(f"Node has multiple attributes with name {attr_name}")
    if not matching:
        raise ValueError(f"Node has no attribute with name {attr_name}")
    return get_attribute_value(matching[0])


def make_empty_tensor_value_info(name: str) -> ValueInfoProto:
    value_info = ValueInfoProto()
    value_info.name = name
    return value_info


def _fill_shape(shape_proto, shape, shape_denotation) -> None:
    shape_proto.dim.extend([])  # an explicitly empty shape (a scalar) stays present
    if shape_denotation and len(shape_denotation) != len(shape):
        raise ValueError("Invalid shape_denotation. Must be of the same length as shape.")
    for i, d in enumerate(shape):
        dim = shape_proto.dim.add()
        if d is None:
            pass
        elif isinstance(d, int):
            dim.dim_value = d
        elif isinstance(d, str):
            dim.dim_param = d
        else:
            raise ValueError(f"Invalid item in shape: {d}. Needs to be of int or str.")
        if shape_denotation:
            dim.denotation = shape_denotation[i]


def _tensor_like_type_proto(field, elem_type, shape, shape_denotation) -> TypeProto:
    type_proto = TypeProto()
    tensor_type = getattr(type_proto, field)
    tensor_type.elem_type = elem_type
    shape_proto = tensor_type.shape
    if shape is not None:
        _fill_shape(shape_proto, shape, shape_denotation)
    return type_proto


def make_tensor_type_proto(
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    shape_denotation: list[str] | None = None,
) -> TypeProto:
    return _tensor_like_type_proto("tensor_type", elem_type, shape, shape_denotation)


def make_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    return make_value_info(
        name, make_tensor_type_proto(elem_type, shape, shape_denotation), doc_string
    )


def make_sparse_tensor_type_proto(
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    shape_denotation: list[str] | None = None,
) -> TypeProto:
    return _tensor_like_type_proto("sparse_tensor_type", elem_type, shape, shape_denotation)


def make_sparse_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    return make_value_info(
        name, make_sparse_tensor_type_proto(elem_type, shape, shape_denotation), doc_string
    )


def make_sequence_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    type_proto = TypeProto()
    type_proto.sequence_type.elem_type.CopyFrom(inner_type_proto)
    return type_proto


def make_optional_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    type_proto = TypeProto()
    type_proto.optional_type.elem_type.CopyFrom(inner_type_proto)
    return type_proto


def make_map_type_proto(key_type: int, value_type: TypeProto) -> TypeProto:
    type_proto = TypeProto()
    type_proto.map_type.key_type = key_type
    type_proto.map_type.value_type.CopyFrom(value_type)
    return type_proto


def make_value_info(name: str, type_proto: TypeProto, doc_string: str = "") -> ValueInfoProto:
    value_info = ValueInfoProto()
    value_info.name = name
    if doc_string:
        value_info.doc_string = doc_string
    value_info.type.CopyFrom(type_proto)
    return value_info


def make_tensor_sequence_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    elem_shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    return make_value_info(
        name,
        make_sequence_type_proto(make_tensor_type_proto(elem_type, shape, elem_shape_denotation)),
        doc_string,
    )


def make_training_info(
    algorithm: GraphProto,
    algorithm_bindings: list[tuple[str, str]],
    initialization: GraphProto | None,
    initialization_bindings: list[tuple[str, str]] | None,
) -> TrainingInfoProto:
    info = TrainingInfoProto()
    info.algorithm.CopyFrom(algorithm)
    for key, value in algorithm_bindings:
        entry = info.update_binding.add()
        entry.key = key
        entry.value = value
    if initialization:
        info.initialization.CopyFrom(initialization)
    for key, value in initialization_bindings or []:
        entry = info.initialization_binding.add()
        entry.key = key
        entry.value = value
    return info


def tensor_dtype_to_np_dtype(tensor_dtype: int) -> np.dtype:
    return _mapping.TENSOR_TYPE_MAP[tensor_dtype].np_dtype


def tensor_dtype_to_storage_tensor_dtype(tensor_dtype: int) -> int:
    return _mapping.TENSOR_TYPE_MAP[tensor_dtype].storage_dtype


def tensor_dtype_to_string(tensor_dtype: int) -> str:
    return _mapping.TENSOR_TYPE_MAP[tensor_dtype].name


def tensor_dtype_to_field(tensor_dtype: int) -> str:
    return _mapping.STORAGE_FIELD[_mapping.TENSOR_TYPE_MAP[tensor_dtype].storage_dtype]


def np_dtype_to_tensor_dtype(np_dtype: np.dtype) -> int:
    return numpy_helper.np_dtype_to_tensor_dtype(np_dtype)


def get_all_tensor_dtypes() -> collections.abc.KeysView[int]:
    return _mapping.TENSOR_TYPE_MAP.keys()
