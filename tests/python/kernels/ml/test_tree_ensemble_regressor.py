"""ai.onnx.ml TreeEnsembleRegressor (versions 1 and 3): scikit-learn's trees, forests and
boosting, LightGBM and XGBoost regressors, against ONNX Runtime and the estimator; hand-made
ensembles for the aggregate functions, missing values, double thresholds, bad trees and
thread counts."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import TensorProto, assert_same, ml_model, refused, run_both
from _sklearn import convert, ops_of, run_converted
from _trees import LEAVES, RNG, TOL, TREES, XS, Y_REG, X, convert_ml, leaf_values, regressors
from onnx import numpy_helper

import onnx_light

F = TensorProto.FLOAT


@pytest.mark.parametrize("index", range(5))
def test_sklearn_regressors(index):
    est = regressors()[index].fit(X, Y_REG)
    light, ref = run_converted(est, X)
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0].ravel(), est.predict(X), rtol=1e-4, atol=1e-4)


def test_a_multi_target_forest():
    from sklearn.ensemble import RandomForestRegressor

    multi = np.stack([Y_REG, X[:, 4]], axis=1)
    est = RandomForestRegressor(n_estimators=8, max_depth=4, random_state=0).fit(X, multi)
    light, ref = run_converted(est, X)
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0], est.predict(X), rtol=1e-4, atol=1e-4)


def test_lightgbm_regressor():
    import lightgbm as lgb

    est = lgb.LGBMRegressor(n_estimators=30, num_leaves=15, random_state=0, verbose=-1).fit(
        X, Y_REG
    )
    light, ref = run_both(convert_ml(est, X, "lightgbm"), {"X": X})
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0].ravel(), est.predict(X), rtol=1e-4, atol=1e-4)


def test_xgboost_regressor_with_missing_values():
    import xgboost as xgb

    x = X.copy()
    x[::7, 1] = np.nan  # XGBoost's default directions for missing values
    est = xgb.XGBRegressor(n_estimators=30, max_depth=4, random_state=0).fit(x, Y_REG)
    model = convert_ml(est, x, "xgboost")
    assert "TreeEnsembleRegressor" in ops_of(model)
    light, ref = run_both(model, {"X": x})
    assert_same(light, ref, **TOL)
    np.testing.assert_allclose(light[0].ravel(), est.predict(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("agg", ["SUM", "AVERAGE", "MIN", "MAX"])
@pytest.mark.parametrize("t", [np.float32, np.float64])
def test_aggregate_functions(agg, t):
    x = XS.astype(t)
    model = ml_model(
        "TreeEnsembleRegressor",
        {"X": x},
        [("y", F)],
        aggregate_function=agg,
        base_values=[0.5],
        **TREES,
        **LEAVES,
    )
    light, ref = run_both(model, {"X": x})
    assert_same(light, ref, **TOL)
    t0, t1 = leaf_values(x)
    f = {
        "SUM": t0 + t1,
        "AVERAGE": (t0 + t1) / 2,
        "MIN": np.minimum(t0, t1),
        "MAX": np.maximum(t0, t1),
    }
    np.testing.assert_allclose(light[0].ravel(), f[agg] + 0.5, rtol=1e-6)


def test_missing_values_take_the_true_branch_where_marked():
    plain = onnx_light.RuntimeSession(
        ml_model("TreeEnsembleRegressor", {"X": XS}, [("y", F)], **TREES, **LEAVES)
    )
    marked = ml_model(
        "TreeEnsembleRegressor",
        {"X": XS},
        [("y", F)],
        nodes_missing_value_tracks_true=[1, 0, 0, 0, 0, 0, 0, 0],
        **TREES,
        **LEAVES,
    )
    light, ref = run_both(marked, {"X": XS})
    assert_same(light, ref, **TOL)
    # NaN in x0: the false branch (x1 = 0 gives 2.0) unmarked, the true one (1.0) marked; + 10
    assert plain.run(None, {"X": XS})[0][4, 0] == 12.0 and light[0][4, 0] == 11.0


def test_as_tensor_attributes_in_double():
    x = XS.astype(np.float64)
    trees, leaves = dict(TREES), dict(LEAVES)
    trees["nodes_values_as_tensor"] = numpy_helper.from_array(
        np.array(trees.pop("nodes_values"), np.float64), "v"
    )
    leaves["target_weights_as_tensor"] = numpy_helper.from_array(
        np.array(leaves.pop("target_weights"), np.float64), "w"
    )
    light, ref = run_both(
        ml_model("TreeEnsembleRegressor", {"X": x}, [("y", F)], **trees, **leaves), {"X": x}
    )
    assert_same(light, ref, **TOL)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            dict(nodes_truenodeids=[9, 0, 3, 0, 0, 1, 0, 0]),
            "tree 0, node 0 points to node 9, which tree 0 does not have",
        ),
        (dict(nodes_nodeids=[0, 1, 2, 3, 3, 0, 1, 2]), "tree 0, node 3 is defined twice"),
        (dict(nodes_truenodeids=[1, 0, 0, 0, 0, 1, 0, 0]), "more than one parent|cycle|no root"),
        (dict(nodes_featureids=[-1, 0, 1, 0, 0, 1, 0, 0]), "tree 0, node 0 reads feature -1"),
        (
            dict(
                nodes_modes=[
                    "BRANCH_LEQ",
                    "LEAF",
                    "BRANCH_XX",
                    "LEAF",
                    "LEAF",
                    "BRANCH_LT",
                    "LEAF",
                    "LEAF",
                ]
            ),
            "node mode 'BRANCH_XX'",
        ),
        (dict(target_ids=[0, 0, 0, 0, 3]), "target \\(or class\\) 3, outside \\[0, 1\\)"),
        (dict(target_nodeids=[1, 3, 4, 1, 0]), "tree 1, node 0 is on a branch node"),
        (dict(nodes_values=[0.5, 0, 0.0]), "nodes_values has 3 values, nodes_nodeids 8"),
        (dict(aggregate_function="MEDIAN"), "aggregate_function 'MEDIAN'"),
    ],
)
def test_bad_trees_are_clear_errors(change, message):
    # checked when the kernel is made (the first run), and again at every run
    attrs = {**TREES, **LEAVES, **change}
    refused("TreeEnsembleRegressor", {"X": XS}, [("y", F)], message, runs=2, **attrs)


def test_a_feature_past_x_is_a_run_error():
    s = onnx_light.RuntimeSession(
        ml_model("TreeEnsembleRegressor", {"X": XS}, [("y", F)], **TREES, **LEAVES)
    )
    with pytest.raises(ValueError, match="the trees read feature 1; X has 1 features"):
        s.run(None, {"X": XS[:, :1].copy()})
    assert s.run(None, {"X": XS})[0].shape == (5, 1)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rows", [1, 7, 1000])
def test_threads_and_batch_sizes_agree(threads, rows):
    # rows split over the pool, trees split for small batches: the same sums either way
    from sklearn.ensemble import RandomForestRegressor

    est = RandomForestRegressor(n_estimators=100, max_depth=6, random_state=0).fit(X, Y_REG)
    model = convert(est, X)
    x = RNG.normal(size=(rows, 6)).astype(np.float32)
    y = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"X": x})[0]
    np.testing.assert_allclose(y.ravel(), est.predict(x), rtol=1e-4, atol=1e-4)
