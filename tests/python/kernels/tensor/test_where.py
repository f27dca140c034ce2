"""Where with every operand full-size or a single value (attention masks) takes a typed
select split across threads; other broadcasts the general walk. Exact against numpy for
1-, 2-, 4- and 8-byte types, and strings through the general walk."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F, node_model
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import TensorProto

ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int64): TensorProto.INT64,
}


def where(c, x, z, threads=1):
    t = ELEM[x.dtype]
    model = node_model("Where", [("c", TensorProto.BOOL), ("x", t), ("z", t)], [("y", t)], opset=16)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    return s.run(None, {"c": c, "x": x, "z": z})[0]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float16, np.int64])
@pytest.mark.parametrize(
    "cs,xs,zs",
    [
        ((1, 12, 64, 64), (), (1, 12, 64, 64)),  # the masked attention scores
        ((1, 12, 64, 64), (1, 12, 64, 64), ()),
        ((), (300_001,), (300_001,)),  # a scalar condition, split across threads
        ((5, 7), (5, 7), (5, 7)),
        ((1, 4, 1), (3, 1, 5), ()),  # a real broadcast: the general walk
    ],
)
def test_where_matches_numpy(cs, xs, zs, dtype, threads):
    rng = np.random.default_rng(len(cs) + len(xs))
    c = np.asarray(rng.integers(0, 2, cs)).astype(bool)
    x = np.asarray(rng.standard_normal(xs) * 50).astype(dtype)
    z = np.asarray(rng.standard_normal(zs) * 50).astype(dtype)
    np.testing.assert_array_equal(where(c, x, z, threads), np.where(c, x, z))


BAD_INPUTS = [
    (
        "Where",
        [("c", B), ("a", F), ("b", F)],
        {},
        {"c": np.ones(5, bool), "a": f32(2, 3), "b": f32(3)},
        "cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
