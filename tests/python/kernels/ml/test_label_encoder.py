"""ai.onnx.ml LabelEncoder against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, D, F, S, X, check, ml_model, refused, strings
from onnx import numpy_helper

import onnx_light


def test_label_encoder_v1():
    check(
        "LabelEncoder",
        {"x": strings("b", "z", "a")},
        [("y", I64)],
        ml_opset=1,
        classes_strings=["a", "b", "c"],
        default_int64=99,
    )
    check(
        "LabelEncoder",
        {"x": np.array([2, 0, 5], np.int64)},
        [("y", S)],
        ml_opset=1,
        classes_strings=["a", "b", "c"],
        default_string="none",
    )


@pytest.mark.parametrize(
    "keys, values, x, out",
    [
        (dict(keys_strings=["a", "b"]), dict(values_int64s=[5, 6]), strings("a", "q", "b"), I64),
        (dict(keys_strings=["a", "b"]), dict(values_floats=[0.5, 1.5]), strings("b", "x"), F),
        (dict(keys_int64s=[3, 4]), dict(values_strings=["x", "y"]), np.array([4, 9], np.int64), S),
        (
            dict(keys_floats=[0.5, float("nan")]),
            dict(values_int64s=[1, 2]),
            np.array([0.5, np.nan, 3.0, -0.0], np.float32),
            I64,
        ),
        (
            dict(keys_floats=[0.0, 2.5]),
            dict(values_floats=[1.0, 2.0]),
            np.array([-0.0, 2.5, 1.0], np.float32),
            F,
        ),
    ],
)
def test_label_encoder_v2(keys, values, x, out):
    check("LabelEncoder", {"x": x}, [("y", out)], ml_opset=2, **keys, **values)


def test_label_encoder_v4_tensor_attributes():
    keys = numpy_helper.from_array(np.array([1, 2, 3], np.int32), "k")
    values = numpy_helper.from_array(np.array([1.5, 2.5, 3.5], np.float64), "v")
    default = numpy_helper.from_array(np.array([-9.0], np.float64), "d")
    table = {1: 1.5, 2: 2.5, 3: 3.5}
    check(
        "LabelEncoder",
        {"x": np.array([[3, 1], [7, 2]], np.int32)},
        [("y", D)],
        ml_opset=4,
        ref=lambda x: [np.vectorize(lambda v: table.get(int(v), -9.0))(x).astype(np.float64)],
        keys_tensor=keys,
        values_tensor=values,
        default_tensor=default,
    )
    keys16 = numpy_helper.from_array(np.array([10, 20], np.int16), "k")
    vals_s = numpy_helper.from_array(np.array(["ten", "twenty"], dtype=object), "v")
    check(
        "LabelEncoder",
        {"x": np.array([20, 30, 10], np.int16)},
        [("y", S)],
        ml_opset=4,
        ref=lambda x: [np.array(["twenty", "_Unused", "ten"], dtype=object)],
        keys_tensor=keys16,
        values_tensor=vals_s,
    )
    # version 4 maps NaN like any key (version 2 never matches it: see above)
    nan_keys = numpy_helper.from_array(np.array([np.nan, 1.0], np.float32), "k")
    nan_vals = numpy_helper.from_array(np.array([5, 6], np.int64), "v")
    check(
        "LabelEncoder",
        {"x": np.array([np.nan, 1.0, 2.0], np.float32)},
        [("y", I64)],
        ml_opset=4,
        ref=lambda x: [np.array([5, 6, -1], np.int64)],
        keys_tensor=nan_keys,
        values_tensor=nan_vals,
    )


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "LabelEncoder",
            {"x": strings("a")},
            [("y", I64)],
            dict(keys_strings=["a"], values_int64s=[1, 2]),
            "1 keys and 2 values",
        ),
        (
            "LabelEncoder",
            {"x": strings("a")},
            [("y", I64)],
            dict(keys_int64s=[1], values_int64s=[1]),
            "the keys are INT64, X is STRING",
        ),
        (
            "LabelEncoder",
            {"x": strings("a")},
            [("y", I64)],
            dict(keys_strings=["a"], keys_int64s=[1], values_int64s=[1]),
            "give exactly one of keys_strings",
        ),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )


def test_spread_and_extreme_int64_keys():
    # keys too far apart for a dense table take the hash map; INT64 extremes are keys too
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    x = np.array([lo, hi, 10**12, -5, 0, 7], np.int64)
    check(
        "LabelEncoder",
        {"x": x},
        [("y", S)],
        ml_opset=2,
        keys_int64s=[lo, hi, 10**12, -5],
        values_strings=["min", "max", "tera", "neg"],
    )
    # a dense range with a duplicate key: the first value wins
    y = check(
        "LabelEncoder",
        {"x": np.array([3, 4, 5], np.int64)},
        [("y", I64)],
        ml_opset=2,
        keys_int64s=[3, 4, 3],
        values_int64s=[30, 40, 99],
    )
    assert y[0].tolist() == [30, 40, -1]
