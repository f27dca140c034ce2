"""scikit-learn estimators and pipelines converted by skl2onnx (issue 31), run whole by
onnx-light and compared with ONNX Runtime and with the estimator's own predictions: linear
and logistic models, naive Bayes, k-nearest neighbours, scalers, encoders, imputers, and
ColumnTransformer pipelines over numeric and string columns. The tree ensembles and SVMs
have their own modules (tests/python/kernels/ml/)."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import assert_same, run_both
from _sklearn import convert, ops_of

RNG = np.random.default_rng(11)
X = RNG.normal(size=(120, 5)).astype(np.float32)
Y_REG = (X @ np.array([1.0, -0.5, 0.25, 2.0, 0.0]) + 0.3).astype(np.float32)
Y3 = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])
TOL = dict(rtol=1e-4, atol=1e-4)


def regressors():
    from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, Ridge, SGDRegressor
    from sklearn.neighbors import KNeighborsRegressor

    return [
        LinearRegression(),
        Ridge(alpha=0.5),
        Lasso(alpha=0.01),
        ElasticNet(alpha=0.01),
        SGDRegressor(random_state=0),
        KNeighborsRegressor(n_neighbors=3),
    ]


def classifiers():
    from sklearn.linear_model import LogisticRegression, SGDClassifier
    from sklearn.naive_bayes import BernoulliNB, GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import LinearSVC

    return [
        LogisticRegression(max_iter=500),
        SGDClassifier(loss="log_loss", random_state=0),
        LinearSVC(random_state=0),
        GaussianNB(),
        BernoulliNB(),
        KNeighborsClassifier(n_neighbors=5),
    ]


@pytest.mark.parametrize("index", range(6))
def test_regressors(index):
    est = regressors()[index].fit(X, Y_REG)
    light, ref = run_both(convert(est, X), {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0].ravel(), est.predict(X), **TOL)


@pytest.mark.parametrize("index", range(6))
def test_classifiers(index):
    est = classifiers()[index].fit(X, Y3)
    light, ref = run_both(convert(est, X), {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.predict(X))


def test_binary_logistic_regression_with_a_string_target():
    from sklearn.linear_model import LogisticRegression

    y = np.where(X[:, 0] > 0, "yes", "no")
    est = LogisticRegression().fit(X, y)
    light, ref = run_both(convert(est, X), {"X": X})
    assert_same(light, ref, **TOL)
    assert light[0].tolist() == est.predict(X).tolist()
    np.testing.assert_allclose(light[1], est.predict_proba(X), **TOL)


@pytest.mark.parametrize(
    "name", ["standard", "minmax", "robust", "maxabs", "normalizer", "binarizer"]
)
def test_transformers(name):
    from sklearn import preprocessing as p

    est = {
        "standard": p.StandardScaler(),
        "minmax": p.MinMaxScaler(),
        "robust": p.RobustScaler(),
        "maxabs": p.MaxAbsScaler(),
        "normalizer": p.Normalizer(),
        "binarizer": p.Binarizer(threshold=0.2),
    }[name].fit(X)
    light, ref = run_both(convert(est, X), {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0], est.transform(X), **TOL)


def test_imputer_and_scaler_pipeline():
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = X.copy()
    x[::9, 2] = np.nan
    est = make_pipeline(SimpleImputer(), StandardScaler(), Ridge()).fit(x, Y_REG)
    model = convert(est, x)
    assert {"Imputer", "Scaler", "LinearRegressor"} <= ops_of(model)
    light, ref = run_both(model, {"X": x})
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0].ravel(), est.predict(x), **TOL)


def test_column_transformer_over_numeric_columns():
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    pre = ColumnTransformer([("a", StandardScaler(), [0, 1, 2]), ("b", MinMaxScaler(), [3, 4])])
    est = Pipeline([("pre", pre), ("clf", LogisticRegression(max_iter=500))]).fit(X, Y3)
    model = convert(est, X)
    light, ref = run_both(model, {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.predict(X))


def test_one_hot_encoder_over_a_string_column():
    from sklearn.preprocessing import OneHotEncoder

    colors = np.array(["red", "green", "blue", "red"], dtype=object)[
        RNG.integers(0, 4, 40)
    ].reshape(-1, 1)
    est = OneHotEncoder().fit(colors)
    model = convert(est, colors)
    assert "OneHotEncoder" in ops_of(model)
    light, ref = run_both(model, {"X": colors})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.transform(colors).toarray())
