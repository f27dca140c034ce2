"""ai.onnx.ml FeatureVectorizer against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import F, X, check, ml_model, refused

import onnx_light


def test_feature_vectorizer_pads_and_cuts():
    a, b, c = X[:, :2], X[:, :3], X[:, 1:2]
    check("FeatureVectorizer", {"a": a, "b": b, "c": c}, [("y", F)], inputdimensions=[2, 2, 3])
    ints = (X * 10).astype(np.int64)
    check("FeatureVectorizer", {"a": ints[:, :3], "b": ints}, [("y", F)], inputdimensions=[3, 4])


def test_feature_vectorizer_takes_mixed_types():
    # ORT binds every input to one type; onnx-light converts each input to float on its own
    a, b = X[:, :2], (X[:, :3] * 10).astype(np.int64)
    model = ml_model("FeatureVectorizer", {"a": a, "b": b}, [("y", F)], inputdimensions=[2, 4])
    y = onnx_light.RuntimeSession(model).run(None, {"a": a, "b": b})[0]
    expected = np.concatenate([a, b.astype(np.float32), np.zeros((5, 1), np.float32)], axis=1)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "FeatureVectorizer",
            {"a": X, "b": X[:2]},
            [("y", F)],
            dict(inputdimensions=[4, 4]),
            "input 1 has 2 rows, input 0 has 5",
        ),
    ],
)
def test_bad_inputs_are_clear_errors(op, feeds, outputs, attrs, message):
    refused(op, feeds, outputs, message, **attrs)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "FeatureVectorizer",
            {"a": X},
            [("y", F)],
            dict(inputdimensions=[1, 2]),
            "inputdimensions has 2 values for 1 inputs",
        ),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )
