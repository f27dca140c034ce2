"""Empty sequences through every sequence op (docs/robustness.md): a valid model may
make one (SequenceEmpty, a SplitToSequence of nothing, erasing the last element), and each
op that meets it gives the ONNX result or a clear error, never a read of an element that
is not there. Every error case runs a good input in the same session afterwards."""

from __future__ import annotations

import numpy as np
import pytest

import onnx_light
from onnx_light.onnx import TensorProto, helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def session(nodes, inputs, outputs, seq_outputs=()):
    outs = [helper.make_tensor_value_info(n, t, None) for n, t in outputs]
    outs += [helper.make_tensor_sequence_value_info(n, F, None) for n in seq_outputs]
    graph = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["empty"], dtype=F)] + nodes,
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs],
        outs,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return onnx_light.RuntimeSession(m, constant_folding=False)


def test_the_length_of_an_empty_sequence_is_zero():
    s = session([helper.make_node("SequenceLength", ["empty"], ["n"])], [], [("n", I64)])
    assert s.run(None, {})[0] == 0


@pytest.mark.parametrize("position", [0, -1, 2**63 - 1, -(2**63)])
def test_sequence_at_of_an_empty_sequence(position):
    # SequenceErase of the only element leaves the sequence empty for SequenceAt.
    nodes = [
        helper.make_node("SequenceInsert", ["empty", "x"], ["one"]),
        helper.make_node("SequenceErase", ["one", "drop"], ["maybe_empty"]),
        helper.make_node("SequenceAt", ["maybe_empty", "p"], ["y"]),
    ]
    s = session(nodes, [("x", F), ("drop", I64), ("p", I64)], [("y", F)])
    feeds = {
        "x": np.ones(2, np.float32),
        "drop": np.array(0, np.int64),
        "p": np.array(position, np.int64),
    }
    with pytest.raises(ValueError, match="out of range|empty"):
        s.run(None, feeds)


def test_erasing_from_an_empty_sequence_is_an_error():
    s = session([helper.make_node("SequenceErase", ["empty"], ["y"])], [], [], seq_outputs=["y"])
    with pytest.raises(ValueError, match="out of range|empty"):
        s.run(None, {})


@pytest.mark.parametrize("new_axis", [0, 1])
def test_concatenating_an_empty_sequence_is_an_error(new_axis):
    s = session(
        [helper.make_node("ConcatFromSequence", ["empty"], ["y"], axis=0, new_axis=new_axis)],
        [],
        [("y", F)],
    )
    with pytest.raises(ValueError, match="empty"):
        s.run(None, {})


def test_split_to_sequence_of_nothing_then_insert_and_concat():
    # Splitting a zero-length axis into zero-length parts, then the ops that follow.
    nodes = [
        helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0, keepdims=1),
        helper.make_node("SequenceLength", ["parts"], ["n"]),
        helper.make_node("SequenceInsert", ["empty", "x"], ["one"]),
        helper.make_node("ConcatFromSequence", ["one"], ["y"], axis=0),
    ]
    s = session(nodes, [("x", F)], [("n", I64), ("y", F)])
    n, y = s.run(None, {"x": np.zeros((0, 3), np.float32)})
    assert n == 0 and y.shape == (0, 3)
    n, y = s.run(None, {"x": np.ones((2, 3), np.float32)})
    assert n == 2 and y.shape == (2, 3)
