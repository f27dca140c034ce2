"""ai.onnx.ml Binarizer against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import NUMERIC, S, X, as_type, check, ml_model
from onnx import helper

import onnx_light


@pytest.mark.parametrize("t", NUMERIC)
def test_binarizer(t):
    x = as_type(X, t)
    y = check(
        "Binarizer",
        {"x": x},
        [("y", helper.np_dtype_to_tensor_dtype(x.dtype))],
        ref=lambda x: [(x > 0.3).astype(t)],
        threshold=0.3,
    )
    np.testing.assert_array_equal(y[0], (x > 0.3).astype(t))


def test_a_string_input_has_no_kernel():
    x = np.array(["a"], dtype=object)
    with pytest.raises(
        RuntimeError,
        match="NOT_IMPLEMENTED: no kernel for node '': op Binarizer, domain ai.onnx.ml",
    ):
        onnx_light.RuntimeSession(ml_model("Binarizer", {"x": x}, [("y", S)]))
