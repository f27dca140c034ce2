"""Tile (src/onnx_light/kernels/tensor/tile.cc): values equal to numpy.tile for every
item size (1, 2, 4, 8 bytes, bool, strings), repeats of 0 and 1, the last axis repeated
(short runs) or not (long runs), a scalar, at 1 and 2 threads; bad inputs refused with a
ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _item_types import TYPES
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = TYPES

CASES = [
    ((1, 64, 28, 28), (1, 1, 2, 2)),
    ((3, 5), (4, 1)),
    ((3, 5), (1, 7)),
    ((2, 3, 4), (2, 0, 3)),
    ((7,), (300,)),
    ((2, 1, 3), (1, 5, 1)),
    ((), ()),
    ((1000, 3), (2, 3)),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", list(ELEM))
@pytest.mark.parametrize("shape,reps", CASES)
def test_tile_matches_numpy(shape, reps, dtype, threads):
    rng = np.random.default_rng(len(shape) + sum(reps))
    x = rng.integers(-100, 100, shape)
    x = x.astype(str) if dtype is np.str_ else x.astype(dtype)
    node = helper.make_node("Tile", ["x", "r"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", ELEM[dtype], None),
            helper.make_tensor_value_info("r", TensorProto.INT64, None),
        ],
        [helper.make_tensor_value_info("y", ELEM[dtype], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    got = s.run(None, {"x": x, "r": np.array(reps, np.int64)})[0]
    want = np.tile(x, reps) if shape else x
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


BAD_INPUTS = [
    (
        "Tile",
        [("a", F), ("r", I)],
        {},
        {"a": f32(2, 3), "r": np.array([2])},
        "repeats has 1 values for rank 2",
    ),
    ("Tile", [("a", F), ("r", I)], {}, {"a": f32(2), "r": np.array([-1])}, "negative repeat"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
