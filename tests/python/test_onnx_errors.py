"""Bad input to onnx_light.onnx: each case is a clear Python exception, never a crash, and
the process goes on. This module does not import the onnx package."""

from __future__ import annotations

import os

import numpy as np
import pytest

import onnx_light.onnx as ol
from onnx_light.onnx import helper, numpy_helper


def _model(initializer=None) -> ol.ModelProto:
    x = helper.make_tensor_value_info("x", ol.TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", ol.TensorProto.FLOAT, [2])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], initializer=initializer or []
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_every_truncation_is_a_value_error_or_a_valid_prefix():
    data = _model(
        [numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")]
    ).SerializeToString()
    errors = 0
    for n in range(len(data)):
        try:
            ol.load_from_string(data[:n])
        except ValueError as e:
            errors += 1
            assert "ModelProto" in str(e)
    assert errors > len(data) // 2
    assert ol.load_from_string(data) == _model(
        [numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")]
    )


@pytest.mark.parametrize(
    "data,message",
    [
        (b"\x08" + b"\xff" * 10 + b"\x01", "varint"),  # ir_version: an 11-byte varint
        (b"\x08\x80", "truncated varint at byte 1"),
        (b"\x0a\x01x", "wire type length-delimited does not match field 'ir_version'"),
        (b"\x3a\x10\x0a", "runs past the end"),  # graph length past the end
        (b"\x00", "invalid field number 0"),
        (b"\x0b", "unsupported wire type 3"),
        (b"\x3a\x04\x0a\x02\x20\x01", "ModelProto.graph.node[0].op_type"),
    ],
)
def test_malformed_bytes(data, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ol.load_from_string(data)
    with pytest.raises(ValueError):
        ol.ModelProto().ParseFromString(data)
    assert ol.load_from_string(b"\x08\x07").ir_version == 7  # still usable


def test_deep_nesting_is_refused():
    graph = ol.GraphProto()
    inner = graph
    for _ in range(60):
        attr = inner.node.add().attribute.add(name="body", type=ol.AttributeProto.GRAPH)
        inner = attr.g
        inner.name = "x"
    model = ol.ModelProto()
    model.graph.CopyFrom(graph)
    with pytest.raises(ValueError, match="nested deeper than the limit of 100"):
        ol.load_from_string(model.SerializeToString())


def test_wrong_python_types():
    with pytest.raises(TypeError):
        ol.ModelProto(ir_version="8")
    with pytest.raises(TypeError):
        ol.NodeProto().input.append(3)
    with pytest.raises(ValueError, match="out of range for int32"):
        ol.TensorProto(data_type=2**31)
    with pytest.raises(ValueError, match='has no "nope" field'):
        ol.NodeProto(nope=1)
    with pytest.raises(TypeError, match="expected NodeProto"):
        ol.GraphProto().node.append(ol.TensorProto())
    with pytest.raises(IndexError):
        ol.GraphProto().node[0]
    with pytest.raises(ValueError, match="no singular"):
        ol.GraphProto().HasField("node")
    with pytest.raises(TypeError):
        ol.load(12)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        ol.load(str(tmp_path / "missing.onnx"))


def _external_model(tmp_path, location, offset=None, length=None):
    tensor = numpy_helper.from_array(np.zeros(2, np.float32), "w")
    tensor.ClearField("raw_data")
    tensor.data_location = ol.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            tensor.external_data.add(key=key, value=str(value))
    model = _model([tensor])
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    path = folder / "m.onnx"
    ol.save(model, str(path))
    return path


@pytest.mark.parametrize(
    "location,offset,length,message",
    [
        ("/etc/hostname", None, None, "is absolute"),
        ("../secret.bin", None, None, "escapes the model's folder"),
        ("link.bin", None, None, "outside the model's folder"),
        ("w.bin", 9, None, "past the end"),
        ("w.bin", 0, 100, "past the end"),
        ("w.bin", "x", None, "not a nonnegative integer"),
    ],
)
def test_external_data_refusals(tmp_path, location, offset, length, message):
    (tmp_path / "secret.bin").write_bytes(b"\0" * 8)
    path = _external_model(tmp_path, location, offset, length)
    (path.parent / "w.bin").write_bytes(b"\0" * 8)
    os.symlink(tmp_path / "secret.bin", path.parent / "link.bin")
    with pytest.raises(ValueError, match=message):
        ol.load(str(path))
    # Loading without external data works, and the process goes on.
    assert len(ol.load(str(path), load_external_data=False).graph.initializer) == 1


def test_external_data_missing_file(tmp_path):
    path = _external_model(tmp_path, "gone.bin")
    with pytest.raises(FileNotFoundError, match="gone.bin"):
        ol.load(str(path))


def test_external_data_round_trip(tmp_path):
    w = np.arange(1000, dtype=np.float32)
    model = _model([numpy_helper.from_array(w, "w")])
    path = tmp_path / "big.onnx"
    ol.save(model, str(path), save_as_external_data=True, size_threshold=16)
    saved = ol.load(str(path), load_external_data=False)
    entries = {e.key: e.value for e in saved.graph.initializer[0].external_data}
    assert entries == {"location": "big.onnx.data", "offset": "0", "length": "4000"}
    loaded = ol.load(str(path))
    np.testing.assert_array_equal(numpy_helper.to_array(loaded.graph.initializer[0]), w)
    assert not loaded.graph.initializer[0].external_data


def test_to_array_errors():
    t = ol.TensorProto(data_type=ol.TensorProto.FLOAT, dims=[3], raw_data=b"\0" * 10)
    with pytest.raises(ValueError, match="not a whole number"):
        numpy_helper.to_array(t)
    with pytest.raises(TypeError, match="UNDEFINED"):
        numpy_helper.to_array(ol.TensorProto())
    t = ol.TensorProto(data_type=ol.TensorProto.INT4, dims=[5], raw_data=b"\0")
    with pytest.raises(ValueError, match="too small"):
        numpy_helper.to_array(t)
    with pytest.raises(ValueError, match="segments"):
        numpy_helper.to_array(ol.TensorProto(data_type=1, segment=ol.TensorProto.Segment(begin=0)))


def test_raw_data_is_a_read_only_view(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    path = tmp_path / "m.onnx"
    ol.save(_model([numpy_helper.from_array(w, "w")]), str(path))
    model = ol.load(str(path))
    array = numpy_helper.to_array(model.graph.initializer[0])
    np.testing.assert_array_equal(array, w)
    assert not array.flags.writeable
    del model  # the array keeps the mapped file alive
    np.testing.assert_array_equal(array, w)


def test_references_survive_their_parent():
    model = _model()
    node = model.graph.node[0]
    graph = model.graph
    del model
    assert node.op_type == "Add"
    graph.node.pop(0)
    assert node.op_type == "Add"  # detached, still valid
    assert len(graph.node) == 0


def test_repeated_fields_compare_with_python_sequences():
    from onnx_light.onnx import helper as h

    node = h.make_node("Add", ["a", "b"], ["c"])
    assert node.input == ["a", "b"] and node.input == ("a", "b")
    assert not (node.input == ["a"]) and not (node.input == ["a", "b", "x"])
    assert not (node.input == ["a", 3])  # an item that does not convert
    t = h.make_tensor("t", 7, [3], [1, 2, 3])
    assert t.dims == [3] and t.int64_data == [1, 2, 3]
    assert not (t.int64_data == [1, 2]) and not (t.int64_data == ["x", 2, 3])
    g = h.make_graph([node], "g", [], [])
    assert g.node == [node] and not (g.node == []) and not (g.node == [node, node])
    assert not (g.node == [1])
