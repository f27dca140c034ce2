"""ai.onnx.ml Scaler against ONNX Runtime (numpy where ORT has no kernel for a type), with
its bad inputs and attributes (tests/python/kernels/ml/_ml.py runs both)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import NUMERIC, F, X, as_type, check, ml_model, refused

import onnx_light


@pytest.mark.parametrize("t", NUMERIC)
def test_scaler_per_feature_and_shared(t):
    x = as_type(X, t)
    check("Scaler", {"x": x}, [("y", F)], offset=[0.5, -1.0, 2.0, 0.0], scale=[2.0, 0.5, 1.0, -3.0])
    check("Scaler", {"x": x}, [("y", F)], offset=[0.25], scale=[4.0])
    check(
        "Scaler", {"x": x[0]}, [("y", F)], offset=[0.25, 0.5, 0.75, 1.0], scale=[1.0, 2.0, 3.0, 4.0]
    )


def test_scaler_sizes_may_differ():
    # ORT requires as many scales as offsets; the spec does not, and neither does onnx-light
    scale = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    model = ml_model("Scaler", {"x": X}, [("y", F)], offset=[0.25], scale=scale.tolist())
    y = onnx_light.RuntimeSession(model).run(None, {"x": X})[0]
    np.testing.assert_allclose(y, (X - 0.25) * scale, rtol=1e-6)


@pytest.mark.parametrize(
    "op, feeds, outputs, attrs, message",
    [
        (
            "Scaler",
            {"x": X},
            [("y", F)],
            dict(scale=[1.0, 2.0], offset=[0.0]),
            "scale has 2 values; X has 4 features",
        ),
    ],
)
def test_bad_inputs_are_clear_errors(op, feeds, outputs, attrs, message):
    refused(op, feeds, outputs, message, **attrs)
