"""Equal, Greater, GreaterOrEqual, Less, LessOrEqual (src/onnx_light/kernels/math/compare.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F
from _one_node import check_bad_input, f32, session

from onnx_light.onnx import helper


def test_legacy_broadcast_of_comparisons_follows_opset_6():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = session("Greater", [("a", F), ("b", F)], out_type=B, opset=6, broadcast=1).run(
        None, {"a": a, "b": np.array([1.0, 1.0, 4.0], np.float32)}
    )
    np.testing.assert_array_equal(y, a > np.array([1.0, 1.0, 4.0], np.float32))


BAD_INPUTS = [
    (
        "Less",
        [("a", F), ("b", F)],
        {"opset": 6, "broadcast": 1, "axis": 1, "out_type": B},
        {"a": f32(2, 3), "b": f32(4)},
        "B \\[4\\] does not fit A \\[2, 3\\] at axis 1",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


# Every numeric type and bool, each operator, the broadcast forms of BroadcastApply (equal
# shapes, one element on either side, a block on either side, the general path with a
# one-value row and with rows on both sides), against numpy (exact). Greater and
# GreaterOrEqual run as Less and LessOrEqual with the operands swapped, and Equal compares
# signed integers as unsigned bits: the extremes of each type and NaN and -0 check both.
CMP_TYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]
CMP_OPS = {
    "Equal": np.equal,
    "Less": np.less,
    "Greater": np.greater,
    "LessOrEqual": np.less_equal,
    "GreaterOrEqual": np.greater_equal,
}
CMP_SHAPES = [
    ((3, 4, 10), (3, 4, 10)),
    ((1,), (3, 4, 10)),
    ((3, 4, 10), ()),
    ((3, 4, 10), (3, 1, 1)),
    ((3, 1, 1), (3, 4, 10)),
    ((3, 4, 1), (1, 4, 3)),
    ((3, 1, 5), (3, 4, 5)),
]


def values(dtype, shape, rng):
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.min + 1, -1 if info.min else 1, 0, 1, info.max], dtype)
        x = rng.integers(-3, 4, shape).astype(dtype)
    else:
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.25], dtype)
        x = rng.integers(-3, 4, shape).astype(dtype)
    flat = x.reshape(-1)
    pick = rng.random(flat.shape) < 0.5
    flat[pick] = rng.choice(pool, int(pick.sum()))
    return x


@pytest.mark.parametrize("dtype", CMP_TYPES)
@pytest.mark.parametrize("op", sorted(CMP_OPS))
def test_every_type_and_broadcast_form_matches_numpy(op, dtype):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    rng = np.random.default_rng(7)
    if dtype is np.bool_ and op != "Equal":  # the ONNX schema takes bool for Equal only
        with pytest.raises(ValueError, match="input 0 \\('a'\\) is BOOL"):
            session(op, [("a", elem), ("b", elem)], out_type=B)
        return
    sess = session(op, [("a", elem), ("b", elem)], out_type=B)
    for sa, sb in CMP_SHAPES:
        a, b = values(dtype, sa, rng), values(dtype, sb, rng)
        (y,) = sess.run(None, {"a": a, "b": b})
        with np.errstate(invalid="ignore"):
            want = CMP_OPS[op](a, b)
        assert y.dtype == np.bool_ and y.shape == want.shape, (sa, sb)
        np.testing.assert_array_equal(y, want, err_msg=f"{op} {dtype.__name__} {sa} {sb}")
