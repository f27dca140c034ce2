"""ai.onnx.ml ArrayFeatureExtractor against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import F, S, X, check, ml_model, refused, strings
from onnx import helper

import onnx_light

RNG = np.random.default_rng(0)


def test_array_feature_extractor():
    idx = np.array([3, 0, 3], np.int64)
    for x in (X, X.astype(np.float64), (X * 10).astype(np.int64), (X * 10).astype(np.int32)):
        elem = helper.np_dtype_to_tensor_dtype(x.dtype)
        check("ArrayFeatureExtractor", {"x": x, "i": idx}, [("y", elem)])
        check("ArrayFeatureExtractor", {"x": x[0], "i": idx}, [("y", elem)])
    s = strings("a", "b", "c", "d", "e", "f").reshape(2, 3)
    check("ArrayFeatureExtractor", {"x": s, "i": np.array([2], np.int64)}, [("y", S)])
    x3 = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    check("ArrayFeatureExtractor", {"x": x3, "i": np.array([1, 2], np.int64)}, [("y", F)])


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "ArrayFeatureExtractor",
            {"x": X, "i": np.array([4], np.int64)},
            [("y", F)],
            {},
            "index 4 .* outside the 4 features",
        ),
        (
            "ArrayFeatureExtractor",
            {"x": X, "i": np.array([-1], np.int64)},
            [("y", F)],
            {},
            "index -1",
        ),
    ],
)
def test_bad_inputs_are_clear_errors(op, feeds, outputs, attrs, message):
    refused(op, feeds, outputs, message, **attrs)
