"""Tensors stored in files beside the model (``data_location = EXTERNAL``)."""

from __future__ import annotations

import os
import uuid

from onnx_light._core import onnx as _c

# Tensors of at least this many bytes start at a multiple of ALIGNMENT in the data file,
# so they can be mapped and used in place with SIMD loads.
ALIGN_THRESHOLD = 1 << 20
ALIGNMENT = 4096


def uses_external_data(tensor) -> bool:
    return tensor.HasField("data_location") and tensor.data_location == 1


def _info(tensor) -> dict[str, str]:
    return {e.key: e.value for e in tensor.external_data}


def load_external_data_for_tensor(tensor, base_dir: str) -> None:
    """Loads one external tensor the way a model load does (same path checks)."""
    model = _c.ModelProto()
    model.graph.initializer.append(tensor)
    _c.load_external_data(model, base_dir or ".")
    tensor.CopyFrom(model.graph.initializer[0])


def _all_tensors(model, convert_attribute: bool):
    def graph_tensors(graph):
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield sparse.values
            yield sparse.indices
        if convert_attribute:
            for node in graph.node:
                yield from node_tensors(node)

    def node_tensors(node):
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("g"):
                yield from graph_tensors(attr.g)
            for g in attr.graphs:
                yield from graph_tensors(g)

    yield from graph_tensors(model.graph)
    if convert_attribute:
        for function in model.functions:
            for node in function.node:
                yield from node_tensors(node)


def convert_model_to_external_data(
    model,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Marks tensors with at least ``size_threshold`` bytes of raw_data as external
    (written by write_external_data_tensors). ``location`` is relative to the model."""
    if location is not None and (os.path.isabs(location) or ".." in location.split("/")):
        raise ValueError(f"location {location!r} must be a relative path inside the model folder")
    for tensor in _all_tensors(model, convert_attribute):
        if not tensor.HasField("raw_data") or len(tensor.raw_data) < size_threshold:
            continue
        name = location if all_tensors_to_one_file and location else None
        if name is None:
            name = location or (tensor.name or str(uuid.uuid1())) + ".data"
            if not all_tensors_to_one_file:
                name = (tensor.name or str(uuid.uuid1())) + ".data"
        del tensor.external_data[:]
        entry = tensor.external_data.add()
        entry.key = "location"
        entry.value = name
        tensor.data_location = 1


def write_external_data_tensors(model, base_dir: str) -> None:
    """Appends the raw_data of every external tensor to its file under ``base_dir``, records
    offset and length, and clears raw_data."""
    opened: set[str] = set()
    for tensor in _all_tensors(model, convert_attribute=True):
        if not uses_external_data(tensor) or not tensor.HasField("raw_data"):
            continue
        info = _info(tensor)
        path = os.path.join(base_dir, info["location"])
        mode = "r+b" if path in opened else "wb"
        opened.add(path)
        data = tensor._raw_data_array()
        with open(path, mode) as fh:
            fh.seek(0, 2)
            offset = fh.tell()
            if data.size >= ALIGN_THRESHOLD and offset % ALIGNMENT:
                fh.write(b"\0" * (ALIGNMENT - offset % ALIGNMENT))
                offset = fh.tell()
            fh.write(memoryview(data))
        for key, value in (("offset", offset), ("length", data.size)):
            entry = tensor.external_data.add()
            entry.key = key
            entry.value = str(value)
        tensor.ClearField("raw_data")
