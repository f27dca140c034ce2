"""ai.onnx.ml SVMRegressor and SVMClassifier on scikit-learn's SVMs converted by skl2onnx
(every kernel; with and without probabilities; binary and multi-class), against ONNX Runtime
and against the estimator; and on hand-made nodes for their bad attributes."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import TensorProto, assert_same, ml_model, refused
from _sklearn import convert, ops_of, run_converted

import onnx_light

pytestmark = pytest.mark.filterwarnings("ignore:The .probability. parameter:FutureWarning")

RNG = np.random.default_rng(7)
X = RNG.normal(size=(60, 4)).astype(np.float32)
Y_REG = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * RNG.normal(size=60)).astype(np.float32)
Y3 = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])  # three classes
Y2 = (X[:, 0] > 0).astype(np.int64)
KERNELS = ["linear", "poly", "rbf", "sigmoid"]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("probability", [False, True])
@pytest.mark.parametrize("classes", [2, 3])
def test_svc_matches_the_estimator_and_ort(kernel, probability, classes):
    from sklearn.svm import SVC

    y = Y3 if classes == 3 else Y2
    est = SVC(
        kernel=kernel, gamma=0.3, coef0=0.1, degree=2, probability=probability, random_state=0
    )
    est.fit(X, y)
    model = convert(est, X)
    assert "SVMClassifier" in ops_of(model)
    light, ref = run_converted(est, X)
    assert_same(light, ref, rtol=1e-4, atol=1e-4)
    # the labels are the estimator's wherever its decision is not a near tie
    margin = np.abs(est.decision_function(X))
    margin = margin if margin.ndim == 1 else np.sort(margin, axis=1)[:, 0]
    clear = margin > 1e-3
    np.testing.assert_array_equal(light[0][clear], est.predict(X)[clear])


def test_svc_with_string_labels():
    from sklearn.svm import SVC

    labels = np.array(["low", "mid", "high"])[Y3]
    est = SVC(kernel="rbf", gamma=0.5).fit(X, labels)
    light, ref = run_converted(est, X)
    assert_same(light, ref, rtol=1e-4, atol=1e-4)
    assert light[0].tolist() == est.predict(X).tolist()


@pytest.mark.parametrize(
    "attrs, message",
    [
        (
            dict(
                coefficients=[1.0] * 4,
                rho=[0.0],
                vectors_per_class=[1, 1, 1],
                support_vectors=[0.0] * 12,
                classlabels_ints=[0, 1],
            ),
            "3 vectors_per_class counts for 2 class labels",
        ),
        (
            dict(
                coefficients=[1.0] * 4,
                rho=[0.0],
                vectors_per_class=[1, 1],
                support_vectors=[0.0] * 7,
                classlabels_ints=[0, 1],
            ),
            "7 support_vectors values for 2 vectors",
        ),
        (
            dict(coefficients=[1.0] * 3, rho=[0.0], classlabels_ints=[0]),
            "at least two class labels",
        ),
        (
            dict(coefficients=[1.0] * 4, rho=[0.0], kernel_type="CUBIC", classlabels_ints=[0, 1]),
            "kernel_type 'CUBIC'",
        ),
        (
            dict(coefficients=[1.0] * 4, rho=[0.0], prob_a=[1.0], classlabels_ints=[0, 1]),
            "prob_a and prob_b differ",
        ),
    ],
)
def test_bad_svm_classifiers_are_refused(attrs, message):
    # checked when the kernel is made (the first run), at every run
    outputs = [("y", TensorProto.INT64), ("z", TensorProto.FLOAT)]
    refused("SVMClassifier", {"X": X}, outputs, message, runs=2, **attrs)
