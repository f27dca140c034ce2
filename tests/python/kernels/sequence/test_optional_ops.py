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
