"""float32 ReduceSum, ReduceMean and ReduceSumSquare over one block of axes sum in SIMD
doubles: trailing axes (the norms of transformers) as contiguous rows, a middle block (a
channel axis) as column sums; other axes take the general walk. All against numpy in
float64 rounded once to float32: rtol 1e-6 (the double sums differ only in order), at one
and two threads (outputs split between threads)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F, I, node_model, run_one
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import TensorProto

CASES = [
    ((1, 64, 512), [-1], 1),  # the RMS norm of a T5 layer
    ((3, 5, 7), [2], 0),
    ((2, 3, 4, 37), [-2, -1], 1),  # a two-axis suffix
    ((2, 1, 9), [1, 2], 0),  # with a unit axis
    ((4, 6, 5), [1], 1),  # a middle axis: column sums with a scalar tail
    ((1, 512, 256), [1], 0),  # magika's channel sums: one image, columns split for threads
    ((3, 70, 37), [0], 1),  # a leading block
    ((2, 5, 3, 67), [1, 2], 0),  # a two-axis middle block, 67 columns (vector tails)
    ((2, 1, 9, 1, 33), [2, 3], 1),  # unit axes on both sides of the block
    ((300, 1000), [1], 0),  # many rows: rows split for threads
    ((4, 6, 5), [0, 2], 0),  # not one block: the general walk
    ((5, 3), [0, 1], 0),  # everything
    ((1, 400, 64, 3), [3], 0),  # 3 stacked maps: rows shorter than a vector, inline
    ((9000, 1), [-1], 1),  # rows of one, split for threads
]

REFS = {
    "ReduceSum": lambda x, ax, k: np.sum(x, axis=ax, keepdims=k),
    "ReduceMean": lambda x, ax, k: np.mean(x, axis=ax, keepdims=k),
    "ReduceSumSquare": lambda x, ax, k: np.sum(x * x, axis=ax, keepdims=k),
    "ReduceL2": lambda x, ax, k: np.sqrt(np.sum(x * x, axis=ax, keepdims=k)),
    # (of |x|: a sum of standard normals may be negative)
    "ReduceLogSum": lambda x, ax, k: np.log(np.sum(np.abs(x), axis=ax, keepdims=k)),
    # The last axes in float32 SIMD (the row's max, then the exponentials summed in float).
    "ReduceLogSumExp": lambda x, ax, k: np.log(np.sum(np.exp(x), axis=ax, keepdims=k)),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("shape,axes,keepdims", CASES)
def test_block_reductions_match_numpy(op, shape, axes, keepdims, threads):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    if op == "ReduceLogSum":
        x = np.abs(x)
    F = TensorProto.FLOAT
    model = node_model(
        op,
        [("x", F), ("axes", None)],
        [("y", F)],
        opset=18,
        initializers={"axes": np.array(axes, np.int64)},
        keepdims=keepdims,
    )
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = REFS[op](x.astype(np.float64), tuple(axes), bool(keepdims)).astype(np.float32)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_bool_reduce_max_min_are_any_and_all():
    x = np.array([[True, False], [False, False]])
    (y,) = run_one("ReduceMax", [("x", B)], {"x": x}, outputs=[("y", B)], opset=20, keepdims=0)
    np.testing.assert_array_equal(y, x.any(axis=(0, 1)))
    (y,) = run_one(
        "ReduceMin",
        [("x", B), ("a", I)],
        {"x": x, "a": np.array([1])},
        outputs=[("y", B)],
        opset=20,
        keepdims=0,
    )
    np.testing.assert_array_equal(y, x.all(axis=1))


@pytest.mark.parametrize(
    "dtype,etype", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)]
)
def test_integer_reductions_match_numpy(dtype, etype):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, size=(3, 4, 5)).astype(dtype)
    refs = {
        # numpy widens int32 sums and products unless told the type.
        "ReduceSum": lambda a, axis, keepdims: np.sum(a, axis=axis, keepdims=keepdims, dtype=dtype),
        "ReduceMax": np.max,
        "ReduceMin": np.min,
        "ReduceProd": lambda a, axis, keepdims: np.prod(
            a, axis=axis, keepdims=keepdims, dtype=dtype
        ),
        "ReduceSumSquare": lambda a, axis, keepdims: np.sum(
            a * a, axis=axis, keepdims=keepdims, dtype=dtype
        ),
        "ReduceL1": lambda a, axis, keepdims: np.sum(
            np.abs(a), axis=axis, keepdims=keepdims, dtype=dtype
        ),
    }
    for op, ref in refs.items():
        s = session(op, [("a", etype), ("s", I)], out_type=etype, opset=18, keepdims=0)
        for axes in ([1], [0, 2], [-1]):
            (y,) = s.run(None, {"a": x, "s": np.array(axes)})
            with np.errstate(over="ignore"):
                np.testing.assert_array_equal(
                    y, ref(x, axis=tuple(axes), keepdims=False), err_msg=op
                )


def test_float_reductions_accumulate_in_double():
    # 2^24 + many ones: a float32 accumulator would stall at 16777216.
    x = np.concatenate([[16777216.0], np.ones(1000)]).astype(np.float32)
    (y,) = session("ReduceSum", [("a", F), ("s", I)], keepdims=0).run(
        None, {"a": x, "s": np.array([0])}
    )
    assert y == np.float32(16777216.0 + 1000)


BAD_INPUTS = [
    (
        "ReduceSum",
        [("a", F), ("s", I)],
        {},
        {"a": f32(2, 3), "s": np.array([2])},
        "axis 2 is out of range for rank 2",
    ),
    ("ReduceMax", [("a", F)], {"axes": [-3]}, {"a": f32(2, 3)}, "axis -3 is out of range"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


MAXMIN = {
    "ReduceMax": lambda x, ax, k: np.max(x, axis=ax, keepdims=k),
    "ReduceMin": lambda x, ax, k: np.min(x, axis=ax, keepdims=k),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(MAXMIN))
@pytest.mark.parametrize("shape,axes,keepdims", CASES)
@pytest.mark.parametrize("special", ["none", "nan", "inf"])
def test_block_max_min_match_numpy_exactly(op, shape, axes, keepdims, threads, special):
    """float32 ReduceMax / ReduceMin in SIMD (simd/reduce_simd.cc): exactly numpy's answer,
    a NaN anywhere in a fold giving NaN and infinities kept, at one and two threads."""
    rng = np.random.default_rng(len(shape) + 7)
    x = rng.standard_normal(shape).astype(np.float32)
    if special != "none":
        flat = x.reshape(-1)
        pick = rng.choice(flat.size, size=max(1, flat.size // 50), replace=False)
        flat[pick] = (
            np.nan if special == "nan" else np.inf * np.sign(rng.standard_normal(pick.size))
        )
    F = TensorProto.FLOAT
    model = node_model(
        op,
        [("x", F), ("axes", None)],
        [("y", F)],
        opset=18,
        initializers={"axes": np.array(axes, np.int64)},
        keepdims=keepdims,
    )
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = MAXMIN[op](x, tuple(axes), bool(keepdims))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "dtype,etype",
    [
        (np.float64, TensorProto.DOUBLE),
        (np.int64, TensorProto.INT64),
        (np.int32, TensorProto.INT32),
    ],
)
@pytest.mark.parametrize(
    "shape,axes",
    [((3, 70, 37), [1]), ((4, 33), [1]), ((5, 6, 7), [0]), ((300, 1000), [1]), ((2, 9, 700), [1])],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_block_folds_of_other_types_match_numpy(dtype, etype, shape, axes, threads):
    """Every other type over one block of axes folds row by row (FoldBlock: contiguous rows
    in four interleaved accumulators, runs of 256 columns; both split between threads):
    Max, Min, Sum and Prod exactly (integers wrap as numpy's do), LogSumExp within 1e-12."""
    rng = np.random.default_rng(9)
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    refs = {
        "ReduceMax": lambda v: np.max(v, axis=tuple(axes)),
        "ReduceMin": lambda v: np.min(v, axis=tuple(axes)),
        "ReduceSum": lambda v: np.sum(v, axis=tuple(axes), dtype=dtype),
        "ReduceProd": lambda v: np.prod(v, axis=tuple(axes), dtype=dtype),
    }
    if dtype == np.float64:
        refs["ReduceLogSumExp"] = lambda v: np.log(np.sum(np.exp(v), axis=tuple(axes)))
    for op, ref in refs.items():
        model = node_model(
            op,
            [("x", etype), ("axes", None)],
            [("y", etype)],
            opset=18,
            initializers={"axes": np.array(axes, np.int64)},
            keepdims=0,
        )
        got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
        if op == "ReduceLogSumExp":
            np.testing.assert_allclose(got, ref(x), rtol=1e-12, err_msg=op)
        else:
            np.testing.assert_array_equal(got, ref(x), err_msg=op)


def test_float_logsumexp_rows_with_infinities_and_nan():
    x = np.zeros((4, 37), np.float32)
    x[0] = -np.inf  # log(0) = -inf
    x[1, 5] = np.inf
    x[2, 30] = np.nan
    x[3] = np.linspace(-80, 80, 37)  # exp(80) overflows float unless shifted by the max
    model = node_model(
        "ReduceLogSumExp", [("x", TensorProto.FLOAT)], [("y", TensorProto.FLOAT)], axes=[1]
    )
    (y,) = onnx_light.RuntimeSession(model).run(None, {"x": x})
    assert y.shape == (4, 1)
    assert y[0, 0] == -np.inf and y[1, 0] == np.inf and np.isnan(y[2, 0])
    want = np.log(np.sum(np.exp(x[3].astype(np.float64))))
    np.testing.assert_allclose(y[3, 0], want, rtol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape,axes", [((300, 1000), [1]), ((4, 33), [1]), ((2, 9, 700), [1])])
def test_float_reduce_prod_in_double(shape, axes, threads):
    """float32 ReduceProd folds in double (four interleaved products a row) and rounds once:
    within 1e-6 of numpy's float64 product rounded to float32; NaN and infinities kept."""
    rng = np.random.default_rng(11)
    x = (rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)).astype(np.float32)
    x.reshape(-1)[5] = np.nan
    x.reshape(-1)[x.size // 2] = np.inf
    model = node_model(
        "ReduceProd",
        [("x", F), ("axes", None)],
        [("y", F)],
        opset=18,
        initializers={"axes": np.array(axes, np.int64)},
        keepdims=0,
    )
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        want = np.prod(x.astype(np.float64), axis=tuple(axes)).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)
