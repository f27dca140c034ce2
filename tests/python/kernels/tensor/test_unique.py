"""Unique (src/onnx_light/kernels/tensor/unique.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, S, run_node
from _one_node import check_bad_input, f32


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


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


BAD_INPUTS = [
    ("Unique", [("x", F)], {"opset": 11, "axis": 1}, {"x": f32(3)}, "axis 1 is out of range"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def first_occurrence_reference(x):
    """Unique by first occurrence, by definition: NaN one value, -0 equal to +0."""
    keys, first, counts, inverse = [], [], [], []
    for p, v in enumerate(x.tolist()):
        k = "nan" if v != v else (0.0 if v == 0 else v)
        if k not in keys:
            keys.append(k)
            first.append(p)
            counts.append(0)
        g = keys.index(k)
        counts[g] += 1
        inverse.append(g)
    return np.array(first), np.array(inverse), np.array(counts)


@pytest.mark.parametrize("sorted_", [1, 0])
@pytest.mark.parametrize(
    "dtype,elem",
    [
        (np.float32, F),
        (np.float64, 11),
        (np.float16, 10),
        (np.int8, 3),
        (np.uint64, 13),
        (np.int64, I),
    ],
)
def test_flat_unique_through_the_hash_table(dtype, elem, sorted_):
    # Flat numbers are grouped through a hash table in first-occurrence order, the distinct
    # values sorted after when sorted=1: the same outputs as the definition.
    rng = np.random.default_rng(4)
    if np.issubdtype(dtype, np.floating):
        x = rng.integers(-6, 6, 300).astype(dtype) / 2
        x[::17] = np.nan
        x[5::23] = -0.0
        x[7::29] = 0.0
        x[::41] = np.inf
    elif dtype is np.uint64:
        x = (rng.integers(0, 5, 300).astype(np.uint64) << np.uint64(62)) + np.uint64(7)
    else:
        x = rng.integers(-100, 100, 300).astype(dtype)
    y, i, inv, c = unique(x, elem, sorted=sorted_)
    first, inverse, counts = first_occurrence_reference(x)
    if sorted_:
        vals = x[first].astype(np.float64)
        order = sorted(range(len(first)), key=lambda g: (np.isnan(vals[g]), vals[g]))
        rank = np.empty(len(first), np.int64)
        rank[order] = np.arange(len(first))
        first, counts, inverse = first[order], counts[order], rank[inverse]
    np.testing.assert_array_equal(i, first)
    np.testing.assert_array_equal(c, counts)
    np.testing.assert_array_equal(inv, inverse)
    np.testing.assert_array_equal(y.view(np.uint8), x[first].view(np.uint8))  # bits: -0 kept
