"""Scatter, ScatterElements, ScatterND (src/onnx_light/kernels/tensor/scatter.cc):
ScatterND's values equal to the ONNX reference's loop in numpy (slices and elements,
duplicate indices: the later update wins; every item size, strings); bad inputs refused
with a ValueError that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _item_types import TYPES, values
from _one_node import check_bad_input, f32

from onnx_light.onnx import TensorProto

BAD_INPUTS = [
    (
        "ScatterElements",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[2, 0, 0]]), "u": f32(1, 3)},
        "index 2 is out of range",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[0, 0, 0]]), "u": f32(1)},
        "must end in a dimension",
    ),
    (
        "ScatterND",
        [("a", F), ("i", I), ("u", F)],
        {},
        {"a": f32(2, 3), "i": np.array([[1]]), "u": f32(1, 2)},
        "do not match indices and data",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "shape,ishape", [((1000, 256), (500, 1)), ((4, 5, 6), (3, 2)), ((4, 5), (6, 2)), ((9,), (9, 1))]
)
def test_scatter_nd_matches_the_reference(shape, ishape, dtype):
    from _graphs import run_node

    x = values(shape, dtype)
    q = ishape[-1]
    rng = np.random.default_rng(3)
    idx = np.stack([rng.integers(-shape[k], shape[k], ishape[:-1]) for k in range(q)], -1)
    upd = values(ishape[:-1] + shape[q:], dtype, seed=4)
    (y,) = run_node(
        "ScatterND",
        [("x", TYPES[dtype]), ("i", TensorProto.INT64), ("u", TYPES[dtype])],
        {"x": x, "i": idx, "u": upd},
        [("y", TYPES[dtype])],
    )
    want = x.copy()
    for t in np.ndindex(idx.shape[:-1]):
        want[tuple(idx[t])] = upd[t]
    np.testing.assert_array_equal(y, want)
