"""Sequences of tensors: graph inputs and outputs as Python lists, the sequence ops against
numpy (exact: they only move values), and the errors (positions, kinds, element types,
sequences where an op takes tensors, and the C ABI's refusal)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from _graphs import F, I

import onnx_light
from onnx_light.onnx import helper


def seq_info(name, elem=F):
    return helper.make_tensor_sequence_value_info(name, elem, None)


def model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_split_insert_erase_at_length_concat_round_trip():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    nodes = [
        helper.make_node("SplitToSequence", ["x", "sizes"], ["s"], axis=1),
        helper.make_node("SequenceInsert", ["s", "extra", "front"], ["s2"]),
        helper.make_node("SequenceErase", ["s2", "last"], ["s3"]),
        helper.make_node("SequenceAt", ["s3", "one"], ["at1"]),
        helper.make_node("SequenceLength", ["s3"], ["n"]),
        helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=1),
    ]
    inputs = [
        helper.make_tensor_value_info(n, t, None)
        for n, t in (("x", F), ("sizes", I), ("extra", F), ("front", I), ("last", I), ("one", I))
    ]
    outputs = [
        seq_info("s3"),
        helper.make_tensor_value_info("at1", F, None),
        helper.make_tensor_value_info("n", I, None),
        helper.make_tensor_value_info("cat", F, None),
    ]
    s = onnx_light.RuntimeSession(model(nodes, inputs, outputs))
    assert s.get_outputs()[0].type == "seq(tensor(float))"
    extra = np.full((4, 1), -1, np.float32)
    seq, at1, n, cat = s.run(
        None,
        {
            "x": x,
            "sizes": np.array([1, 2, 3]),
            "extra": extra,
            "front": np.array(0),
            "last": np.array(-1),
            "one": np.array(1),
        },
    )
    parts = [extra, x[:, 0:1], x[:, 1:3]]  # the piece of 3 was erased
    assert isinstance(seq, list) and len(seq) == 3
    for got, want in zip(seq, parts):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(at1, x[:, 0:1])
    assert n == 3
    np.testing.assert_array_equal(cat, np.concatenate(parts, axis=1))


def test_sequence_inputs_construct_and_stack():
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
        helper.make_node("ConcatFromSequence", ["s"], ["stacked"], axis=0, new_axis=1),
        helper.make_node("SplitToSequence", ["stacked"], ["rows"], keepdims=0),
    ]
    inputs = [
        helper.make_tensor_value_info("a", F, None),
        helper.make_tensor_value_info("b", F, None),
    ]
    s = onnx_light.RuntimeSession(model(nodes, inputs, [seq_info("rows")]))
    a, b = np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)
    (rows,) = s.run(None, {"a": a, "b": b})
    assert [r.shape for r in rows] == [(2, 3), (2, 3)]
    np.testing.assert_array_equal(rows[0], a)
    # A sequence graph input, fed as a list.
    node = helper.make_node("ConcatFromSequence", ["in"], ["y"], axis=-1)
    s2 = onnx_light.RuntimeSession(
        model([node], [seq_info("in")], [helper.make_tensor_value_info("y", F, None)])
    )
    assert s2.get_inputs()[0].type == "seq(tensor(float))"
    (y,) = s2.run(None, {"in": [a, b[:, :1]]})
    np.testing.assert_array_equal(y, np.concatenate([a, b[:, :1]], axis=-1))
    with pytest.raises(TypeError, match="expected a list of numpy arrays"):
        s2.run(None, {"in": a})
    with pytest.raises(TypeError, match="expected float32"):
        s2.run(None, {"in": [a.astype(np.float64)]})


def test_sequence_outputs_own_their_memory():
    # Sequence outputs hand over the tensors a node made and only the frame holds (no
    # copy); everything else in them is copied: a graph input (SequenceConstruct), a
    # tensor also returned on its own (SequenceAt) or in another sequence (SequenceErase).
    nodes = [
        helper.make_node("SplitToSequence", ["x"], ["split"], axis=0),
        helper.make_node("SequenceConstruct", ["x", "x"], ["fed"]),
        helper.make_node("SequenceAt", ["split", "zero"], ["first"]),
        helper.make_node("SequenceErase", ["split", "zero"], ["split2"]),
        helper.make_node("SplitToSequence", ["x"], ["alone"], axis=1),
    ]
    inputs = [
        helper.make_tensor_value_info("x", F, None),
        helper.make_tensor_value_info("zero", I, None),
    ]
    outputs = [seq_info(n) for n in ("split", "fed", "split2", "alone")]
    outputs.insert(2, helper.make_tensor_value_info("first", F, None))
    s = onnx_light.RuntimeSession(model(nodes, inputs, outputs))
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    feeds = {"x": x, "zero": np.array(0)}
    for _ in range(3):  # later runs reuse the session's memory
        split, fed, first, split2, alone = s.run(None, feeds)
        for t in split + fed + split2 + alone + [first]:
            assert t.flags.writeable
            t.fill(-7)
        for got in s.run(None, feeds)[0]:  # a fresh run is untouched by those writes
            assert got.min() >= 0
        np.testing.assert_array_equal(x, np.arange(12, dtype=np.float32).reshape(3, 4))
    split, fed, first, split2, alone = s.run(None, feeds)
    for parts, want in ((split, x), (split2, x[1:]), (alone, x.T)):
        assert len(parts) == len(want)
        for got, row in zip(parts, want):
            np.testing.assert_array_equal(got.ravel(), row)
    for t in split:  # shared with `first` and `split2` in the run: each got its own copy
        t.fill(5)
    np.testing.assert_array_equal(first, x[0:1])
    np.testing.assert_array_equal(split2[0], x[1:2])
    assert not any(np.shares_memory(f, x) for f in fed)


def at_model():
    nodes = [helper.make_node("SequenceAt", ["in", "p"], ["y"])]
    return model(
        nodes,
        [seq_info("in"), helper.make_tensor_value_info("p", I, None)],
        [helper.make_tensor_value_info("y", F, None)],
    )


def test_sequence_errors():
    s = onnx_light.RuntimeSession(at_model())
    with pytest.raises(ValueError, match="position 2 is out of range for a sequence of 2"):
        s.run(None, {"in": [np.ones(1, np.float32)] * 2, "p": np.array(2)})
    np.testing.assert_array_equal(
        s.run(None, {"in": [np.ones(1, np.float32), np.zeros(1, np.float32)], "p": np.array(-1)})[
            0
        ],
        [0.0],
    )
    erase = model(
        [helper.make_node("SequenceErase", ["in"], ["out"])], [seq_info("in")], [seq_info("out")]
    )
    with pytest.raises(ValueError, match="cannot erase from an empty sequence"):
        onnx_light.RuntimeSession(erase).run(None, {"in": []})
    # A sequence where an op takes tensors is refused when the session is created.
    relu = model(
        [helper.make_node("Relu", ["in"], ["y"])],
        [seq_info("in")],
        [helper.make_tensor_value_info("y", F, None)],
    )
    with pytest.raises(RuntimeError, match="is a sequence where this op takes a tensor"):
        onnx_light.RuntimeSession(relu)
    split = model(
        [helper.make_node("SplitToSequence", ["x", "s"], ["out"])],
        [helper.make_tensor_value_info("x", F, None), helper.make_tensor_value_info("s", I, None)],
        [seq_info("out")],
    )
    with pytest.raises(ValueError, match="split sizes add up to 3, the axis has 4"):
        onnx_light.RuntimeSession(split).run(
            None, {"x": np.ones(4, np.float32), "s": np.array([1, 2])}
        )


def test_the_c_abi_refuses_sequence_models():
    from onnx_light import _native_dir  # <build>/python/onnx_light

    lib = ctypes.CDLL(str(_native_dir().parents[1] / "lib" / "libonnx_light.so"))
    lib.OnnxLightSessionCreate.restype = ctypes.c_int32
    lib.OnnxLightLastErrorMessage.restype = ctypes.c_char_p
    data = at_model().SerializeToString()
    handle = ctypes.c_void_p()
    rc = lib.OnnxLightSessionCreate(data, ctypes.c_size_t(len(data)), ctypes.byref(handle))
    assert rc != 0 and b"the C ABI passes tensors and maps only" in lib.OnnxLightLastErrorMessage()
