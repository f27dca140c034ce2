"""ai.onnx.ml SVMRegressor and SVMClassifier on scikit-learn's SVMs converted by skl2onnx
(every kernel; with and without probabilities; binary and multi-class), against ONNX Runtime
and against the estimator; and on hand-made nodes for their bad attributes."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import TensorProto, assert_same, ml_model
from _sklearn import convert, ops_of, run_converted

import onnx_light

RNG = np.random.default_rng(7)
X = RNG.normal(size=(60, 4)).astype(np.float32)
Y_REG = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * RNG.normal(size=60)).astype(np.float32)
Y3 = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])  # three classes
Y2 = (X[:, 0] > 0).astype(np.int64)
KERNELS = ["linear", "poly", "rbf", "sigmoid"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_svr_matches_the_estimator_and_ort(kernel):
    from sklearn.svm import SVR

    est = SVR(kernel=kernel, degree=3, gamma=0.3, coef0=0.5, C=2.0).fit(X, Y_REG)
    model = convert(est, X)
    assert "SVMRegressor" in ops_of(model)
    light, ref = run_converted(est, X)
    assert_same(light, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(light[0].ravel(), est.predict(X), rtol=1e-3, atol=1e-3)


def test_one_class_svm():
    from sklearn.svm import OneClassSVM

    est = OneClassSVM(kernel="rbf", gamma=0.2, nu=0.2).fit(X)
    light, ref = run_converted(est, X)
    assert_same(light, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(light[0].ravel(), est.predict(X))


def test_features_that_do_not_fit_are_a_run_error():
    s = onnx_light.RuntimeSession(
        ml_model(
            "SVMRegressor", {"X": X}, [("y", TensorProto.FLOAT)], coefficients=[1.0, 2.0], rho=[0.5]
        )
    )
    with pytest.raises(ValueError, match="X has 4 features, the model 2"):
        s.run(None, {"X": X})
    np.testing.assert_allclose(
        s.run(None, {"X": X[:, :2].copy()})[0].ravel(), X[:, 0] + 2 * X[:, 1] + 0.5, rtol=1e-6
    )
