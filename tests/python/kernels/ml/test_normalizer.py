"""ai.onnx.ml Normalizer against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import NUMERIC, F, X, as_type, check, ml_model

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
    s = onnx_light.RuntimeSession(ml_model(op, feeds, outputs, **attrs))
    with pytest.raises(ValueError, match=message):
        s.run(None, feeds)


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
    # ai.onnx.ml ops have no schema rows here: the attributes are checked when the node's
    # kernel is made, at the first run; the error repeats at every run (nothing is kept)
    s = onnx_light.RuntimeSession(ml_model(op, feeds, outputs, ml_opset=2, **attrs))
    for _ in range(2):
        with pytest.raises(ValueError, match=f"\\({op}, domain ai.onnx.ml\\): {message}"):
            s.run(None, feeds)
