"""Expand (src/onnx_light/kernels/tensor/expand.cc): the output in rows (runs copied whole,
one value repeated), exact against numpy for every whole-byte type at one and two threads,
strings element by element; bad inputs refused with a ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto

TYPES = {
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.bool_): TensorProto.BOOL,
    np.dtype(np.complex128): TensorProto.COMPLEX128,  # 16-byte items
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "shape,target",
    [
        ((1, 1, 56, 56), (1, 64, 56, 56)),  # a plane repeated per channel
        ((64, 1), (64, 300)),  # a column: each value repeated along its row
        ((3, 1, 5), (2, 3, 4, 5)),  # new leading axes and a middle one
        ((), (7, 3)),  # a scalar
        ((4, 5), (4, 5)),  # nothing to broadcast
        ((1,), (200_000,)),  # one long row, in pieces across threads
        ((2, 0, 3), (2, 0, 3)),  # empty
    ],
)
def test_expand_matches_numpy(shape, target, dtype, threads):
    rng = np.random.default_rng(len(shape))
    x = np.asarray(rng.standard_normal(shape) * 50).astype(dtype)
    t = TYPES[np.dtype(dtype)]
    model = node_model("Expand", [("x", t), ("s", I)], [("y", t)], opset=13)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    (y,) = s.run(None, {"x": x, "s": np.array(target, np.int64)})
    np.testing.assert_array_equal(y, np.broadcast_to(x, target))


def test_expand_strings():
    S = TensorProto.STRING
    model = node_model("Expand", [("x", S), ("s", I)], [("y", S)], opset=13)
    x = np.array([["a"], ["bc"]], dtype=object)
    (y,) = onnx_light.RuntimeSession(model).run(None, {"x": x, "s": np.array([2, 3], np.int64)})
    np.testing.assert_array_equal(y, np.broadcast_to(x, (2, 3)))


BAD_INPUTS = [
    (
        "Expand",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([4, 3])},
        "cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
