"""GatherND (src/onnx_light/kernels/tensor/gather_nd.cc): values equal to the ONNX
reference's loop in numpy for batch_dims 0-2, whole elements and slices, negative
indices, every item size, bool and strings; bad inputs refused with a ValueError that names
the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _item_types import TYPES, values
from _one_node import check_bad_input, f32

from onnx_light.onnx import TensorProto

BAD_INPUTS = [
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 3]])},
        "index 3 is out of range",
    ),
    (
        "GatherND",
        [("a", F), ("i", I)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]])},
        "do not fit data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def gather_nd_reference(x, idx, b):
    batch = int(np.prod(x.shape[:b])) if b else 1
    q = idx.shape[-1]
    xs = x.reshape((batch,) + x.shape[b:])
    ids = idx.reshape(batch, -1, q)
    out = [xs[i][tuple(ids[i, t])] for i in range(batch) for t in range(ids.shape[1])]
    return np.array(out, x.dtype).reshape(idx.shape[:-1] + x.shape[b + q :])


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "shape,ishape,b",
    [((1, 1000, 256), (1, 500, 1), 1), ((5, 6), (4, 2), 0), ((5, 6, 3), (2, 3, 1), 0)]
    + [((2, 3, 4, 5), (2, 3, 7, 1), 2), ((2, 3, 4), (2, 5, 2), 1)],
)
def test_gather_nd_matches_the_reference(shape, ishape, b, dtype):
    from _graphs import run_node

    x = values(shape, dtype)
    q = ishape[-1]
    rng = np.random.default_rng(2)
    idx = np.stack([rng.integers(-shape[b + k], shape[b + k], ishape[:-1]) for k in range(q)], -1)
    (y,) = run_node(
        "GatherND",
        [("x", TYPES[dtype]), ("i", TensorProto.INT64)],
        {"x": x, "i": idx},
        [("y", TYPES[dtype])],
        batch_dims=b,
    )
    np.testing.assert_array_equal(y, gather_nd_reference(x, idx, b))
