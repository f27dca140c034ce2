"""Where over whole-byte types walks the broadcast output as rows (common/broadcast_rows.h:
axes merged where every operand runs on contiguously), each a branch-free select, rows (long
ones in pieces) split across threads; strings take the element walk. Exact against numpy
for 1-, 2-, 4- and 8-byte types and strings, NaN payloads kept bit for bit."""

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
        ((1, 4, 1), (3, 1, 5), ()),  # every operand broadcast along some axis
        ((1024, 256), (1024, 256), (256,)),  # a row broadcast (the benchmark's)
        ((64, 1), (64, 300), (1, 300)),  # a column condition, a row of z
        ((2, 1, 5, 1), (1, 3, 1, 7), (2, 3, 5, 7)),  # strides 0 inside every row
        ((1, 1, 70_000), (4, 70_000), ()),  # rows longer than a 64k piece
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


def test_where_keeps_nan_payloads_and_strings():
    bits = np.array([0x7FC00001, 0xFFC12345, 0x3F800000], np.uint32)
    x = bits.view(np.float32)
    z = np.zeros(3, np.float32)
    got = where(np.array([True, True, False]), x, z)
    np.testing.assert_array_equal(
        got.view(np.uint32), np.array([0x7FC00001, 0xFFC12345, 0], np.uint32)
    )
    S = TensorProto.STRING
    model = node_model("Where", [("c", TensorProto.BOOL), ("x", S), ("z", S)], [("y", S)], opset=16)
    c = np.array([[True], [False]])
    xs = np.array(["a", "b", "c"], dtype=object)
    zs = np.array([["p", "q", "r"], ["s", "t", "u"]], dtype=object)
    (y,) = onnx_light.RuntimeSession(model).run(None, {"c": c, "x": xs, "z": zs})
    np.testing.assert_array_equal(y, np.where(c, xs, zs))
