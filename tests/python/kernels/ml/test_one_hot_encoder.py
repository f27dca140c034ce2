"""ai.onnx.ml OneHotEncoder against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import F, X, check, ml_model, refused, strings

import onnx_light


def one_hot_ref(cats):
    def ref(x):
        return [np.stack([(x.astype(np.int64) == c) for c in cats], axis=-1).astype(np.float32)]

    return ref


@pytest.mark.parametrize("t", [np.int64, np.int32, np.float32, np.float64])
def test_one_hot_encoder_numbers(t):
    x = np.array([[1, 3], [2, 7]], t)
    check("OneHotEncoder", {"x": x}, [("y", F)], ref=one_hot_ref([1, 2, 3]), cats_int64s=[1, 2, 3])


def test_one_hot_encoder_strings_and_zeros():
    x = strings("a", "c", "z")
    check("OneHotEncoder", {"x": x}, [("y", F)], cats_strings=["a", "b", "c"])
    model = ml_model("OneHotEncoder", {"x": x}, [("y", F)], cats_strings=["a", "b", "c"], zeros=0)
    s = onnx_light.RuntimeSession(model)
    with pytest.raises(ValueError, match="element 2 of X is in no category"):
        s.run(None, {"x": x})
    assert s.run(None, {"x": strings("b")})[0].tolist() == [[0.0, 1.0, 0.0]]


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        ("OneHotEncoder", {"x": X}, [("y", F)], {}, "required attribute 'cats_int64s' is missing"),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )


def test_spread_categories_and_values_outside_them():
    cats = [-(10**15), 0, 10**15]
    x = np.array([[10**15, 5], [-(10**15), 0]], np.int64)
    y = check("OneHotEncoder", {"x": x}, [("y", F)], ref=one_hot_ref(cats), cats_int64s=cats)
    assert y[0].sum() == 3
