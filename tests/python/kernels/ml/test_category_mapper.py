"""ai.onnx.ml CategoryMapper against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, S, check, ml_model, refused, strings

import onnx_light


def test_category_mapper_both_ways():
    cats = dict(cats_strings=["cat", "dog", "cow"], cats_int64s=[3, 1, 7])
    check("CategoryMapper", {"x": strings("dog", "cow", "bird")}, [("y", I64)], **cats)
    check("CategoryMapper", {"x": np.array([[7, 3], [2, 1]], np.int64)}, [("y", S)], **cats)
    check("CategoryMapper", {"x": strings("x")}, [("y", I64)], default_int64=42, **cats)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "CategoryMapper",
            {"x": strings("a")},
            [("y", I64)],
            dict(cats_strings=["a"], cats_int64s=[1, 2]),
            "cats_strings has 1 values, cats_int64s 2",
        ),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )
