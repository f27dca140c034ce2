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


def assert_same_maps(light, ref, **tol):
    """A ZipMap output (a list of {label: probability} dicts) equal to ORT's."""
    from _ml import assert_same_dict

    assert isinstance(light, list) and len(light) == len(ref)
    for a, b in zip(light, ref):
        assert_same_dict(a, b, **tol)


@pytest.mark.parametrize("target", ["int", "str"])
def test_classifiers_with_zipmap(target):
    # skl2onnx's default: probabilities as a list of {label: probability} dicts (ZipMap).
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    y = Y3 if target == "int" else np.array(["low", "mid", "high"], dtype=object)[Y3]
    for est in (LogisticRegression(max_iter=500), RandomForestClassifier(10, random_state=0)):
        est.fit(X, y)
        model = convert(est, X, zipmap=True)
        assert "ZipMap" in ops_of(model)
        light, ref = run_both(model, {"X": X})
        assert_same(light[:1], ref[:1])
        assert_same_maps(light[1], ref[1], **TOL)
        assert light[0].tolist() == est.predict(X).tolist()
        labels = list(est.classes_)
        probabilities = np.array([[row[c] for c in labels] for row in light[1]])
        np.testing.assert_allclose(probabilities, est.predict_proba(X), **TOL)
        assert all(type(k) is (int if target == "int" else str) for k in light[1][0])


def test_dict_vectorizer_pipeline_takes_a_dict():
    # A map input (DictVectorizer) and a map output (ZipMap) in one model.
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    words = ["alpha", "beta", "gamma", "delta"]
    rows = [
        {w: float(v) for w, v in zip(words, r) if v > -0.5} for r in X[:, :4].astype(np.float64)
    ]
    est = make_pipeline(DictVectorizer(sparse=False), LogisticRegression(max_iter=500))
    est.fit(rows, Y3)
    onx = to_onnx(
        est,
        initial_types=[("input", DictionaryType(StringTensorType([1]), FloatTensorType([1])))],
        target_opset={"": 17, "ai.onnx.ml": 3},
    )
    model = onx.SerializeToString()
    assert {"DictVectorizer", "ZipMap"} <= ops_of(model)
    import onnx_light

    session = onnx_light.RuntimeSession(model)
    assert session.get_inputs()[0].type == "map(string,tensor(float))"
    for row in rows[:20]:
        light, ref = run_both(model, {"input": row})
        assert_same(light[:1], ref[:1])
        assert_same_maps(light[1], ref[1], **TOL)
        assert light[0].tolist() == est.predict([row]).tolist()
        probabilities = [light[1][0][c] for c in est.classes_]
        np.testing.assert_allclose(probabilities, est.predict_proba([row])[0], **TOL)


def test_column_transformer_over_string_and_numeric_columns():
    # A DataFrame's named columns as the model's inputs: two numbers scaled, a string
    # one-hot encoded (unknown categories ignored), then a classifier with ZipMap.
    import pandas as pd
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import FloatTensorType, StringTensorType
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    cities = np.array(["paris", "oslo", "lima", "pune"], dtype=object)[RNG.integers(0, 4, len(X))]
    df = pd.DataFrame({"age": X[:, 0], "income": X[:, 1], "city": cities})
    y = Y3 + (cities == "oslo")
    pre = ColumnTransformer(
        [
            ("num", StandardScaler(), ["age", "income"]),
            ("cat", OneHotEncoder(handle_unknown="ignore"), ["city"]),
        ]
    )
    est = Pipeline([("pre", pre), ("clf", LogisticRegression(max_iter=500))]).fit(df, y)
    onx = to_onnx(
        est,
        initial_types=[
            ("age", FloatTensorType([None, 1])),
            ("income", FloatTensorType([None, 1])),
            ("city", StringTensorType([None, 1])),
        ],
        target_opset={"": 17, "ai.onnx.ml": 3},
    )
    model = onx.SerializeToString()
    assert {"Scaler", "OneHotEncoder", "LinearClassifier", "ZipMap"} <= ops_of(model)
    test = df.copy()
    test.loc[::7, "city"] = "rome"  # unseen: all zeros after the encoder
    feeds = {
        "age": test[["age"]].to_numpy(np.float32),
        "income": test[["income"]].to_numpy(np.float32),
        "city": test[["city"]].to_numpy(object),
    }
    light, ref = run_both(model, feeds)
    assert_same(light[:1], ref[:1])
    assert_same_maps(light[1], ref[1], **TOL)
    assert light[0].tolist() == est.predict(test).tolist()
    probabilities = np.array([[row[c] for c in est.classes_] for row in light[1]])
    np.testing.assert_allclose(probabilities, est.predict_proba(test), **TOL)
