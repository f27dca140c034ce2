"""ai.onnx.ml Normalizer against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import NUMERIC, F, X, as_type, check, ml_model, refused

import onnx_light


@pytest.mark.parametrize("norm", ["MAX", "L1", "L2"])
@pytest.mark.parametrize("t", NUMERIC)
def test_normalizer(norm, t):
    x = as_type(X, t)
    x[2] = 0  # a zero row is copied
    check("Normalizer", {"x": x}, [("y", F)], norm=norm)
    check("Normalizer", {"x": x[1]}, [("y", F)], norm=norm)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "Normalizer",
            {"x": np.ones((2, 2, 2), np.float32)},
            [("y", F)],
            dict(norm="L1"),
            r"X must be \[N, C\] or \[C\]",
        ),
    ],
)
def test_bad_inputs_are_clear_errors(op, feeds, outputs, attrs, message):
    refused(op, feeds, outputs, message, **attrs)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "Normalizer",
            {"x": X},
            [("y", F)],
            dict(norm="L3"),
            "norm 'L3' is not one of MAX, L1, L2",
        ),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )
