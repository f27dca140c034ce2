"""TopK (src/onnx_light/kernels/math/topk.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import check_bad_input, f32

import onnx_light
from onnx_light.onnx import helper


def test_topk_against_numpy():
    v = np.array([[3, 1, 3, 2], [0, 5, 5, -1]], np.float32)
    node = helper.make_node("TopK", ["a", "k"], ["y", "i"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("a", F, None), helper.make_tensor_value_info("k", I, None)],
        [helper.make_tensor_value_info("y", F, None), helper.make_tensor_value_info("i", I, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    s_out = s.run(None, {"a": v, "k": np.array([3])})
    np.testing.assert_array_equal(s_out[0], [[3, 3, 2], [5, 5, 0]])
    np.testing.assert_array_equal(s_out[1], [[0, 2, 3], [1, 2, 0]])  # ties: lower index first


def topk_reference(x, k, axis, largest):
    """The spec's order by a stable sort: NaN as the largest value, ties by lower index."""
    x = np.moveaxis(x, axis, -1)
    f = x.astype(np.float64)
    nan = np.isnan(f)
    # largest: ascending order of -x with NaN first; smallest: of x with NaN last (a NaN
    # key of -inf or +inf ties with a real infinity: none in these inputs)
    key = np.where(nan, -np.inf if largest else np.inf, -f if largest else f)
    order = np.argsort(key, axis=-1, kind="stable")
    idx = order[..., :k]
    vals = np.take_along_axis(x, idx, -1)
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


@pytest.mark.parametrize("largest", [1, 0])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16])
@pytest.mark.parametrize(
    "shape,k,axis",
    [((64, 1000), 10, -1), ((64, 1000), 1, -1), ((8, 300), 200, 1), ((3, 50, 7), 5, 1)]
    + [((5, 9), 9, 1), ((4, 100), 0, 1), ((2, 1000, 3), 64, 1)],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_topk_matches_a_stable_sort(shape, k, axis, dtype, largest, threads):
    # both paths: one scan keeping the best k (k <= 64 and 8k <= the axis; contiguous
    # blocks tested against the k-th first), partial_sort otherwise; ties (integers from a
    # small range) and NaN among the floats; slices split between threads
    rng = np.random.default_rng(k + len(shape))
    x = rng.integers(-20, 20, shape).astype(dtype)
    if dtype != np.int64:
        x = x + rng.standard_normal(shape).astype(dtype) * (np.arange(x.size) % 3 == 0).reshape(
            shape
        )
        x.ravel()[::37] = np.nan
    elem = {np.float32: F, np.int64: I, np.float16: 10}[dtype]
    node = helper.make_node("TopK", ["a", "k"], ["y", "i"], axis=axis, largest=largest)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("a", elem, None),
            helper.make_tensor_value_info("k", I, None),
        ],
        [
            helper.make_tensor_value_info("y", elem, None),
            helper.make_tensor_value_info("i", I, None),
        ],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
        intra_op_threads=threads,
    )
    got_v, got_i = s.run(None, {"a": x, "k": np.array([k])})
    want_v, want_i = topk_reference(x, k, axis, largest)
    np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_array_equal(got_v, want_v)


BAD_INPUTS = [
    (
        "TopK",
        [("a", F), ("k", I)],
        {},
        {"a": f32(2, 3), "k": np.array([4])},
        "K=4 is outside \\[0, 3\\]",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
