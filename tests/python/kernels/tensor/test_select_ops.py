"""OneHot, Compress, NonZero, Unique, ReverseSequence against numpy (exact: they only move
values), on cases the backend data leaves out, and every error they raise."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import run_node

import onnx_light
from onnx_light.onnx import TensorProto

F, I, B, S = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL, TensorProto.STRING


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


def test_onehot_negative_and_out_of_range_indices_on_a_middle_axis():
    ind = np.array([[0, -1, 5], [2, -4, -3]], np.int64)
    (y,) = run(
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": ind, "d": np.array(3), "v": np.array([-1.0, 7.0], np.float32)},
        axis=1,
    )
    want = np.full((2, 3, 3), -1.0, np.float32)
    for a in range(2):
        for b in range(3):
            k = ind[a, b] + 3 if ind[a, b] < 0 else ind[a, b]
            if 0 <= k < 3:
                want[a, k, b] = 7.0
    np.testing.assert_array_equal(y, want)


def test_compress_with_a_short_condition_and_without_axis():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = run("Compress", [("x", F), ("c", B)], {"x": x, "c": np.array([0, 1, 1], bool)}, axis=1)
    np.testing.assert_array_equal(y, x[:, [1, 2]])
    (y,) = run("Compress", [("x", F), ("c", B)], {"x": x, "c": np.array([1, 0, 0, 1, 1], bool)})
    np.testing.assert_array_equal(y, x.ravel()[[0, 3, 4]])


@pytest.mark.parametrize(
    "x",
    [
        np.array([[0, 2], [3, 0], [0, 0]], np.float32),
        np.zeros((2, 0), np.float32),
        np.array(5.0, np.float32),
    ],
)
def test_nonzero_matches_numpy(x):
    (y,) = run("NonZero", [("x", F)], {"x": x}, outs=[("y", I)])
    want = np.array(np.nonzero(np.atleast_1d(x)))
    np.testing.assert_array_equal(y, want.reshape(max(x.ndim, 1), -1))


def unique(x, xtype, **attrs):
    outs = [("y", xtype), ("i", I), ("inv", I), ("c", I)]
    return run("Unique", [("x", xtype)], {"x": x}, outs=outs, opset=11, **attrs)


def test_unique_sorted_with_nan_matches_numpy():
    x = np.array([3.0, np.nan, 1.0, 3.0, np.nan, -2.0], np.float32)
    y, i, inv, c = unique(x, F)
    wy, wi, winv, wc = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    # numpy keeps each NaN apart; ONNX (like ORT) counts NaN as one value.
    np.testing.assert_array_equal(y, wy[:4])
    np.testing.assert_array_equal(i, wi[:4])
    np.testing.assert_array_equal(c, [1, 1, 2, 2])
    np.testing.assert_array_equal(y[inv], x)


def test_unique_by_first_occurrence_along_an_axis():
    x = np.array([[1, 0, 1], [2, 5, 2], [1, 0, 1]], np.int64)
    y, i, inv, c = unique(x, I, axis=1, sorted=0)
    np.testing.assert_array_equal(y, [[1, 0], [2, 5], [1, 0]])
    np.testing.assert_array_equal(i, [0, 1])
    np.testing.assert_array_equal(inv, [0, 1, 0])
    np.testing.assert_array_equal(c, [2, 1])


def test_unique_strings():
    x = np.array(["b", "a", "b", ""], dtype=object)
    y, i, inv, c = unique(x, S)
    assert list(y) == ["", "a", "b"]
    np.testing.assert_array_equal(c, [1, 1, 2])


def test_reverse_sequence_batch_major():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (y,) = run(
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"x": x, "l": np.array([4, 0, 2], np.int64)},
        batch_axis=0,
        time_axis=1,
    )
    want = x.copy()
    want[0] = x[0, ::-1]
    want[2, :2] = x[2, 1::-1]
    np.testing.assert_array_equal(y, want)


def f32(*shape):
    return np.ones(shape, np.float32)


BAD = [
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": np.array([1]), "d": np.array(0), "v": f32(2)},
        {},
        "depth must be a positive",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": np.array([1]), "d": np.array([2, 3]), "v": f32(2)},
        {},
        "depth must have one",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": np.array([1]), "d": np.array(2), "v": f32(3)},
        {},
        "values must be",
    ),
    (
        "OneHot",
        [("i", I), ("d", I), ("v", F)],
        {"i": np.array([1]), "d": np.array(2), "v": f32(2)},
        {"axis": 3},
        "axis 3 is out of range",
    ),
    (
        "Compress",
        [("x", F), ("c", B)],
        {"x": f32(2, 2), "c": np.ones(5, bool)},
        {"axis": 0},
        "more than the 2",
    ),
    (
        "Compress",
        [("x", F), ("c", B)],
        {"x": f32(2, 2), "c": np.ones((1, 1), bool)},
        {},
        "condition must be 1-D",
    ),
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"x": f32(3, 2), "l": np.array([4, 1])},
        {},
        "sequence length 4 is outside",
    ),
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"x": f32(3, 2), "l": np.array([1])},
        {},
        "sequence_lens must be \\[2\\]",
    ),
    (
        "ReverseSequence",
        [("x", F), ("l", I)],
        {"x": f32(3, 2), "l": np.array([1, 1])},
        {"batch_axis": 2},
        "batch_axis and time_axis",
    ),
    ("Unique", [("x", F)], {"x": f32(3)}, {"axis": 1}, "axis 1 is out of range"),
]


@pytest.mark.parametrize("op, inputs, feeds, attrs, match", BAD, ids=[b[-1] for b in BAD])
def test_bad_inputs_are_value_errors(op, inputs, feeds, attrs, match):
    with pytest.raises(ValueError, match=match):
        run(op, inputs, feeds, opset=11, **attrs)
    (y,) = run("Compress", [("x", F), ("c", B)], {"x": f32(2), "c": np.array([1, 0], bool)})
    np.testing.assert_array_equal(y, [1.0])
