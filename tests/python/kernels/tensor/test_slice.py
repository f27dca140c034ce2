"""Slice copies whole runs when the last axis has unit step, and trailing axes taken
whole join the run; a strided last axis copies typed rows: every case here against numpy
slicing, exactly (unit and larger steps, negative steps, one-wide trailing axes, element
sizes 1, 2, 4 and 8 bytes, strings)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

CASES = [
    ((2, 3, 8, 1), [2], [6], [2], [1]),
    ((2, 3, 8, 1), [1, 2], [3, 7], [1, 2], [1, 1]),
    ((2, 3, 4, 5), [1], [3], [1], [1]),
    ((2, 3, 4, 5), [0, 1], [2, 4], [0, 3], [1, 1]),
    ((2, 3, 4, 5), [3], [0], [1], [-1]),
    ((2, 3, 4, 5), [0, 4], [2, 1], [0, 3], [1, -2]),
    ((4, 6), [1, 0], [3, 6], [0, 1], [1, 1]),
    ((1, 3, 8, 10), [0, 1], [2**63 - 1, 2**63 - 1], [2, 3], [2, 2]),  # YOLO's Focus slices
    ((2, 5, 9), [8], [0], [2], [-3]),  # a strided last axis, backwards
]


@pytest.mark.parametrize("shape,starts,ends,axes,steps", CASES)
@pytest.mark.parametrize("kind", ["float32", "string", "uint8", "float16", "int64"])
def test_slice_matches_numpy(shape, starts, ends, axes, steps, kind):
    n = int(np.prod(shape))
    if kind == "string":
        x = np.array([f"v{i}" for i in range(n)], dtype=object).reshape(shape)
        elem = TensorProto.STRING
    else:
        dtype, elem = {
            "float32": (np.float32, TensorProto.FLOAT),
            "uint8": (np.uint8, TensorProto.UINT8),
            "float16": (np.float16, TensorProto.FLOAT16),
            "int64": (np.int64, TensorProto.INT64),
        }[kind]
        x = np.arange(n).astype(dtype).reshape(shape)
    inits = [
        numpy_helper.from_array(np.array(v, np.int64), name)
        for v, name in ((starts, "s"), (ends, "e"), (axes, "a"), (steps, "p"))
    ]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_tensor_value_info("y", elem, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    index = [slice(None)] * len(shape)
    for s, e, a, p in zip(starts, ends, axes, steps):
        index[a] = slice(s, e, p)
    np.testing.assert_array_equal(got, x[tuple(index)])


BAD_INPUTS = [
    (
        "Slice",
        [("a", F), ("b", I), ("e", I), ("x", I), ("s", I)],
        {},
        {
            "a": f32(4),
            "b": np.array([0]),
            "e": np.array([4]),
            "x": np.array([0]),
            "s": np.array([0]),
        },
        "step is 0",
    ),
    (
        "Slice",
        [("a", F), ("b", I), ("e", I)],
        {},
        {"a": f32(4), "b": np.array([0, 1]), "e": np.array([4])},
        "differ in length",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
