"""Add, Sub, Mul, Div where one operand is full-size and the other constant over a
trailing block (per-channel scales and biases): the block path, both operand orders,
several dtypes; and general broadcasts (outer products [N, 1] x [1, M], rows read along
one side or both), on one and two threads, also for Equal. Against numpy
(exact: one operation per element, the same rounding; float16 computes in float32 and
rounds once, as numpy's float16 does)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import TensorProto, helper

ELEM = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(np.int32): TensorProto.INT32,
}

SHAPES = [
    ((2, 3, 4, 5), (3, 1, 1)),
    ((3, 1, 1), (2, 3, 4, 5)),
    ((2, 3, 4, 5), (2, 3, 1, 1)),
    ((1, 8, 9), (8, 1)),
    ((4, 16), (4, 1)),
    ((2, 3, 4, 5), (1, 1, 1, 1)),
]


def run(op, a, b, threads=1):
    elem = ELEM[a.dtype]
    node = helper.make_node(op, ["a", "b"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("a", elem, a.shape),
            helper.make_tensor_value_info("b", elem, b.shape),
        ],
        [helper.make_tensor_value_info("y", TensorProto.BOOL if op == "Equal" else elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    session = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    return session.run(None, {"a": a, "b": b})[0]


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_block_broadcast_matches_numpy(op, dtype, sa, sb):
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(sa) * 10).astype(dtype)
    b = (rng.standard_normal(sb) * 10).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        b[b == 0] = 3
    got = run(op, a, b)
    if dtype == np.float16:
        fa, fb = a.astype(np.float32), b.astype(np.float32)
    else:
        fa, fb = a, b
    if op == "Div" and np.issubdtype(dtype, np.integer):
        q = np.abs(fa) // np.abs(fb)  # C division truncates toward zero
        want = np.where((fa < 0) ^ (fb < 0), -q, q)
    else:
        want = {"Add": fa + fb, "Sub": fa - fb, "Mul": fa * fb, "Div": fa / fb}[op]
    np.testing.assert_array_equal(got, want.astype(dtype))


GENERAL = [
    ((1, 2048, 1), (1, 1, 257)),  # Magika's one-hot: an outer product
    ((300, 1), (1, 700)),  # large enough to split across threads
    ((5, 1, 7), (1, 3, 7)),  # rows read along both sides
    ((3, 1, 1, 9), (1, 4, 6, 1)),
    ((2, 3, 1), (3, 5)),
    ((4, 1, 50), (4, 3, 1)),  # the row side repeats over a middle axis
    ((2, 1, 3, 40), (1, 5, 3, 1)),  # and moves along another
    ((1, 2, 1, 40), (3, 2, 5, 1)),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("sa,sb", GENERAL)
def test_general_broadcast_matches_numpy(sa, sb, threads):
    rng = np.random.default_rng(len(sa) + threads)
    a = rng.integers(-3, 4, sa).astype(np.float32)
    b = rng.integers(-3, 4, sb).astype(np.float32)
    np.testing.assert_array_equal(run("Sub", a, b, threads), a - b)
    np.testing.assert_array_equal(run("Sub", b, a, threads), b - a)
    ai, bi = a.astype(np.int32), b.astype(np.int32)
    np.testing.assert_array_equal(run("Equal", ai, bi, threads), ai == bi)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("sa,sb", [((256, 1024), (256, 1024)), ((7,), ()), *GENERAL[:4]])
def test_float16_bit_for_bit_numpy_in_float32(op, sa, sb, threads):
    # float16 widened in vector code, computed in float32, rounded once: bit for bit
    # numpy's float32 result rounded to float16, specials (inf, NaN, subnormals) included
    rng = np.random.default_rng(len(sa) + len(sb))
    a = (rng.standard_normal(sa) * 300).astype(np.float16)
    b = np.asarray(rng.standard_normal(sb) * 300).astype(np.float16)
    specials = np.array([np.inf, -np.inf, np.nan, 6e-8, -6e-8, 0.0, -0.0, 65504], np.float16)
    a.ravel()[: min(a.size, 8)] = specials[: min(a.size, 8)]
    got = run(op, a, b, threads)
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        want = {"Add": fa + fb, "Sub": fa - fb, "Mul": fa * fb, "Div": fa / fb}[op]
        want = want.astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op,ref", [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_arithmetic_wraps_like_numpy(op, ref, dtype):
    # Signed Add, Sub and Mul run as the unsigned type of their width (binary.cc RunAs):
    # the same bits, wrapping at both ends; numpy's integer arithmetic wraps too.
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    edges = [info.min, info.min + 1, -1 if info.min else 2, 0, 1, info.max - 1, info.max]
    edges = np.array(edges, dtype=object).astype(dtype)
    a = rng.integers(info.min, info.max, (4, 7, 9), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (4, 7, 9), dtype=dtype, endpoint=True)
    a.reshape(-1)[:49] = np.repeat(edges, 7).astype(dtype)
    b.reshape(-1)[:49] = np.tile(edges, 7).astype(dtype)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    sess = session(op, [("a", elem), ("b", elem)], out_type=elem)
    with np.errstate(over="ignore"):
        for x, z in ((a, b), (a, b[:, :1, :]), (a[:1, :, :1], b), (a, b[0, 0, 0])):
            (y,) = sess.run(None, {"a": x, "b": np.asarray(z)})
            np.testing.assert_array_equal(y, ref(x, z), err_msg=f"{op} {x.shape} {np.shape(z)}")


def test_uint16_mul_wraps():
    s = session(
        "Mul", [("a", TensorProto.UINT16), ("b", TensorProto.UINT16)], out_type=TensorProto.UINT16
    )
    a = np.array([65535, 40000, 3], np.uint16)
    (y,) = s.run(None, {"a": a, "b": a})
    np.testing.assert_array_equal(y, a * a)


def test_legacy_opset6_broadcast_attribute():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.array([1, 2, 3], np.float32)
    s = session("Add", [("a", F), ("b", F)], opset=6, broadcast=1, axis=1)
    (y,) = s.run(None, {"a": a, "b": b})
    np.testing.assert_array_equal(y, a + b.reshape(3, 1))
    with pytest.raises(ValueError, match="differ and broadcast is 0"):
        session("Add", [("a", F), ("b", F)], opset=6).run(None, {"a": a, "b": b})
    with pytest.raises(ValueError, match="does not fit A"):
        session("Mul", [("a", F), ("b", F)], opset=6, broadcast=1, axis=2).run(
            None, {"a": a, "b": b}
        )


BAD_INPUTS = [
    (
        "Add",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 3), "b": f32(4)},
        "shapes \\[2, 3\\] and \\[4\\] cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def test_a_session_runs_good_input_after_a_bad_one():
    (y,) = check_bad_input(
        "Add",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 3), "b": f32(4)},
        "cannot be broadcast",
        good={"a": f32(2, 3), "b": f32(3)},
    )
    np.testing.assert_array_equal(y, np.full((2, 3), 2, np.float32))
