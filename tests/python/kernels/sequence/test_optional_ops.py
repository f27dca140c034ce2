"""Optional tensors: graph inputs and outputs as an array or None, Optional /
OptionalHasElement / OptionalGetElement, and the errors (an empty optional where a value
is needed, None for a plain input, an optional where an op takes tensors)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F

import onnx_light
from onnx_light.onnx import helper


def opt_info(name, elem=F):
    return helper.make_value_info(
        name, helper.make_optional_type_proto(helper.make_tensor_type_proto(elem, None))
    )


def model(nodes, inputs, outputs, opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_optional_input_none_or_value():
    nodes = [
        helper.make_node("OptionalHasElement", ["o"], ["has"]),
        helper.make_node("Optional", ["x"], ["wrapped"]),
    ]
    s = onnx_light.RuntimeSession(
        model(
            nodes,
            [opt_info("o"), helper.make_tensor_value_info("x", F, None)],
            [helper.make_tensor_value_info("has", B, None), opt_info("wrapped")],
        )
    )
    assert s.get_inputs()[0].type == "optional(tensor(float))"
    x = np.arange(3, dtype=np.float32)
    has, wrapped = s.run(None, {"o": None, "x": x})
    assert not has and wrapped is not None
    np.testing.assert_array_equal(wrapped, x)
    has, _ = s.run(None, {"o": x, "x": x})
    assert has
    has, _ = s.run(None, {"x": x})  # an optional input left out is empty
    assert not has
    with pytest.raises(TypeError, match="input .x.: expected a numpy array, got NoneType"):
        s.run(None, {"o": None, "x": None})


def test_empty_optional_output_and_get_element_error():
    typ = helper.make_tensor_type_proto(F, None)
    nodes = [
        helper.make_node("Optional", [], ["empty"], type=typ),
        helper.make_node("OptionalHasElement", ["empty"], ["has"]),
    ]
    s = onnx_light.RuntimeSession(
        model(nodes, [], [opt_info("empty"), helper.make_tensor_value_info("has", B, None)])
    )
    empty, has = s.run(None, {})
    assert empty is None and not has
    get = onnx_light.RuntimeSession(
        model(
            [helper.make_node("OptionalGetElement", ["o"], ["y"])],
            [opt_info("o")],
            [helper.make_tensor_value_info("y", F, None)],
        )
    )
    np.testing.assert_array_equal(get.run(None, {"o": np.ones(2, np.float32)})[0], [1, 1])
    with pytest.raises(ValueError, match="the optional input is empty"):
        get.run(None, {"o": None})


def test_an_optional_where_an_op_takes_tensors_is_refused():
    relu = model(
        [helper.make_node("Relu", ["o"], ["y"])],
        [opt_info("o")],
        [helper.make_tensor_value_info("y", F, None)],
    )
    with pytest.raises(RuntimeError, match="is an optional; this op takes tensors only"):
        onnx_light.RuntimeSession(relu)


def branch(name, nodes, outputs):
    return helper.make_graph(nodes, name, [], outputs)


def test_optionals_and_sequences_flow_into_subgraphs_as_ort_runs_them():
    """A value of any kind that a subgraph reads from its enclosing graph reaches it as it
    is (the node's implicit inputs take no kind check of their own): an optional into an
    If branch (set and empty), a sequence into a Loop body. ONNX Runtime computes the same."""
    import onnxruntime as ort  # the oracle (test venv)

    zero = helper.make_tensor("zero", F, [], [0.0])
    then_g = branch(
        "then",
        [helper.make_node("OptionalGetElement", ["o"], ["t"])],
        [helper.make_tensor_value_info("t", F, None)],
    )
    else_g = branch(
        "else",
        [helper.make_node("Mul", ["z", "zero"], ["e"])],
        [helper.make_tensor_value_info("e", F, None)],
    )
    graph = helper.make_graph(
        [
            helper.make_node("OptionalHasElement", ["o"], ["has"]),
            helper.make_node("If", ["has"], ["y"], then_branch=then_g, else_branch=else_g),
        ],
        "g",
        [opt_info("o"), helper.make_tensor_value_info("z", F, [3])],
        [helper.make_tensor_value_info("y", F, None)],
        [zero],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    light = onnx_light.RuntimeSession(m)
    real = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    z = np.array([4, 5, 6], np.float32)
    for o in (np.array([1, 2, 3], np.float32), None):
        (want,) = real.run(None, {"o": o, "z": z})
        (got,) = light.run(None, {"o": o, "z": z})
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [0, 0, 0])

    # A sequence read by a Loop body: y accumulates seq[i] for i < trip count.
    seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, None))
    body = helper.make_graph(
        [
            helper.make_node("SequenceAt", ["s", "i"], ["item"]),
            helper.make_node("Add", ["acc", "item"], ["acc_out"]),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", 7, []),
            helper.make_tensor_value_info("cond", B, []),
            helper.make_tensor_value_info("acc", F, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", B, []),
            helper.make_tensor_value_info("acc_out", F, None),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "start"], ["total"], body=body)],
        "g",
        [
            helper.make_value_info("s", seq),
            helper.make_tensor_value_info("n", 7, []),
            helper.make_tensor_value_info("start", F, [2]),
        ],
        [helper.make_tensor_value_info("total", F, None)],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    feeds = {
        "s": [np.array([1, 2], np.float32), np.array([10, 20], np.float32)],
        "n": np.array(2, np.int64),
        "start": np.zeros(2, np.float32),
    }
    (want,) = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feeds
    )
    (got,) = onnx_light.RuntimeSession(m).run(None, feeds)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [11, 22])


def test_an_outer_optional_read_where_an_op_takes_tensors_is_refused():
    """The subgraph's own nodes check what they read: Relu of an outer optional in a branch
    is refused at load, naming the branch; the process stays usable."""
    then_g = branch(
        "then",
        [helper.make_node("Relu", ["o"], ["t"])],
        [helper.make_tensor_value_info("t", F, None)],
    )
    else_g = branch(
        "else",
        [helper.make_node("Relu", ["z"], ["e"])],
        [helper.make_tensor_value_info("e", F, None)],
    )
    bad = model(
        [
            helper.make_node("OptionalHasElement", ["o"], ["has"]),
            helper.make_node("If", ["has"], ["y"], then_branch=then_g, else_branch=else_g),
        ],
        [opt_info("o"), helper.make_tensor_value_info("z", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
    )
    with pytest.raises(
        RuntimeError, match="then_branch.*is an optional; this op takes tensors only"
    ):
        onnx_light.RuntimeSession(bad)
    test_optional_input_none_or_value()  # still usable
