"""ai.onnx.ml TreeEnsembleClassifier (versions 1 and 3): scikit-learn's classifiers (binary and
multi-class), LightGBM and XGBoost classifiers, string labels, against ONNX Runtime and the
estimator; the class-label check."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import TensorProto, assert_same, ml_model, run_both
from _sklearn import run_converted
from _trees import TOL, TREES, XS, Y2, Y3, X, classifiers, convert_ml

import onnx_light

F, I64 = TensorProto.FLOAT, TensorProto.INT64


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("index", range(5))
def test_sklearn_classifiers(index, classes):
    est = classifiers()[index].fit(X, Y3 if classes == 3 else Y2)
    light, ref = run_converted(est, X)
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.predict(X))
    np.testing.assert_allclose(light[1], est.predict_proba(X), rtol=1e-4, atol=1e-4)


def test_string_labels():
    from sklearn.ensemble import RandomForestClassifier

    labels = np.array(["cat", "dog", "eel"])[Y3]
    est = RandomForestClassifier(n_estimators=8, max_depth=4, random_state=0).fit(X, labels)
    light, ref = run_converted(est, X)
    assert_same(light, ref, **TOL)
    assert light[0].tolist() == est.predict(X).tolist()


@pytest.mark.parametrize("y", [Y2, Y3], ids=["binary", "multiclass"])
def test_lightgbm_classifier(y):
    import lightgbm as lgb

    est = lgb.LGBMClassifier(n_estimators=30, num_leaves=15, random_state=0, verbose=-1).fit(X, y)
    light, ref = run_both(convert_ml(est, X, "lightgbm"), {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.predict(X))
    np.testing.assert_allclose(light[1], est.predict_proba(X), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("y", [Y2, Y3], ids=["binary", "multiclass"])
def test_xgboost_classifier_with_missing_values(y):
    import xgboost as xgb

    x = X.copy()
    x[::7, 1] = np.nan
    est = xgb.XGBClassifier(n_estimators=30, max_depth=4, random_state=0).fit(x, y)
    light, ref = run_both(convert_ml(est, x, "xgboost"), {"X": x})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0], est.predict(x))
    np.testing.assert_allclose(light[1], est.predict_proba(x), rtol=1e-4, atol=1e-4)


def test_class_label_count_must_cover_the_class_ids():
    attrs = dict(
        TREES,
        class_treeids=[0, 0, 0, 1, 1],
        class_nodeids=[1, 3, 4, 1, 2],
        class_ids=[0, 1, 2, 0, 5],
        class_weights=[1.0, 1.0, 1.0, 1.0, 1.0],
        classlabels_int64s=[0, 1, 2],
    )
    s = onnx_light.RuntimeSession(
        ml_model("TreeEnsembleClassifier", {"X": XS}, [("y", I64), ("z", F)], **attrs)
    )
    with pytest.raises(ValueError, match="class\\) 5, outside \\[0, 3\\)"):
        s.run(None, {"X": XS})
    attrs.update(class_ids=[0, 1, 2, 0, 1], classlabels_int64s=[4])
    s = onnx_light.RuntimeSession(
        ml_model("TreeEnsembleClassifier", {"X": XS}, [("y", I64), ("z", F)], **attrs)
    )
    with pytest.raises(ValueError, match="needs at least two class labels, has 1"):
        s.run(None, {"X": XS})
