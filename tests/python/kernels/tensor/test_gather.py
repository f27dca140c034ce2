"""Gather, GatherElements (src/onnx_light/kernels/tensor/gather.cc): GatherElements'
values equal to numpy.take_along_axis for every axis of ranks 1-3, int32 and int64
indices with negative ones, indices shorter than data off the axis, item sizes 1, 2, 4, 8,
bool and strings; bad inputs refused with a ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _item_types import TYPES, values
from _one_node import check_bad_input, f32

from onnx_light.onnx import TensorProto

BAD_INPUTS = [
    (
        "Gather",
        [("a", F), ("i", I)],
        {"axis": 1},
        {"a": f32(2, 3), "i": np.array([0, 3])},
        "index 3 is out of range for a dimension of 3",
    ),
    (
        "Gather",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([-3])},
        "index -3 is out of range",
    ),
    (
        "GatherElements",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.zeros(2, np.int64)},
        "must have the rank of data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize("index_type", [np.int32, np.int64])
@pytest.mark.parametrize(
    "shape,ishape,axis",
    [((7,), (5,), 0), ((64, 1000), (64, 100), 1), ((6, 5), (9, 5), 0), ((4, 6, 5), (3, 2, 5), 1)]
    + [((4, 6, 5), (4, 6, 7), 2), ((4, 6, 5), (2, 6, 3), -3)],
)
def test_gather_elements_matches_numpy(shape, ishape, axis, index_type, dtype):
    from _graphs import run_node

    x = values(shape, dtype)
    n = shape[axis]
    idx = np.random.default_rng(1).integers(-n, n, ishape).astype(index_type)
    it = TensorProto.INT32 if index_type is np.int32 else TensorProto.INT64
    (y,) = run_node(
        "GatherElements",
        [("x", TYPES[dtype]), ("i", it)],
        {"x": x, "i": idx},
        [("y", TYPES[dtype])],
        axis=axis,
    )
    # numpy wants the indices as long as data off the axis: take the leading part of x
    a = axis % len(shape)
    view = x[tuple(slice(0, d) if k != a else slice(None) for k, d in enumerate(ishape))]
    np.testing.assert_array_equal(y, np.take_along_axis(view, idx % n, axis=a))
