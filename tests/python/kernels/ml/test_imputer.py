"""ai.onnx.ml Imputer against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import I64, D, F, X, check, ml_model, refused

import onnx_light


def test_imputer_floats_ints_and_nan():
    x = X.copy()
    x[1, 2] = np.nan
    x[3, 0] = np.nan
    check(
        "Imputer",
        {"x": x},
        [("y", F)],
        imputed_value_floats=[1.0, 2.0, 3.0, 4.0],
        replaced_value_float=float("nan"),
    )
    check(
        "Imputer",
        {"x": x},
        [("y", F)],
        imputed_value_floats=[7.0],
        replaced_value_float=float("nan"),
    )
    xi = np.array([[1, 0, 3], [0, 5, 0]], np.int64)
    check(
        "Imputer", {"x": xi}, [("y", I64)], imputed_value_int64s=[9, 8, 7], replaced_value_int64=0
    )
    # double and int32 too (ORT registers float and int64 only): the reference is numpy
    xd = x.astype(np.float64)
    y = onnx_light.RuntimeSession(
        ml_model(
            "Imputer",
            {"x": xd},
            [("y", D)],
            imputed_value_floats=[-1.0],
            replaced_value_float=float("nan"),
        )
    ).run(None, {"x": xd})[0]
    np.testing.assert_array_equal(y, np.where(np.isnan(xd), -1.0, xd))


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "Imputer",
            {"x": X},
            [("y", F)],
            dict(imputed_value_floats=[1.0, 2.0], replaced_value_float=0.0),
            "2 imputed values for 4 features",
        ),
    ],
)
def test_bad_inputs_are_clear_errors(op, feeds, outputs, attrs, message):
    refused(op, feeds, outputs, message, **attrs)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        ("Imputer", {"x": X}, [("y", F)], {}, "no imputed values"),
    ],
)
def test_bad_attributes_are_refused(op, feeds, outputs, attrs, message):
    # ai.onnx.ml ops have no schema rows here: checked when the kernel is made
    refused(
        op, feeds, outputs, f"\\({op}, domain ai.onnx.ml\\): {message}", runs=2, ml_opset=2, **attrs
    )
