"""Shared by the tree-ensemble tests: data, scikit-learn estimators, LightGBM / XGBoost
conversion (onnxmltools), and a small hand-made ensemble with its expected leaves."""

from __future__ import annotations

import warnings

import numpy as np
from _ml import TensorProto, ml_model
from onnx import numpy_helper

F, D = TensorProto.FLOAT, TensorProto.DOUBLE
RNG = np.random.default_rng(3)
X = RNG.normal(size=(300, 6)).astype(np.float32)
Y_REG = (X[:, 0] * 2 - X[:, 1] ** 2 + 0.5 * X[:, 2] * X[:, 3]).astype(np.float32)
Y2 = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
Y3 = np.digitize(X[:, 0] - 0.5 * X[:, 2], [-0.6, 0.6])
TOL = dict(rtol=1e-5, atol=1e-5)


def regressors():
    from sklearn.ensemble import (
        ExtraTreesRegressor,
        GradientBoostingRegressor,
        HistGradientBoostingRegressor,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeRegressor

    return [
        DecisionTreeRegressor(max_depth=6, random_state=0),
        RandomForestRegressor(n_estimators=20, max_depth=5, random_state=0),
        ExtraTreesRegressor(n_estimators=10, max_depth=5, random_state=0),
        GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0),
        HistGradientBoostingRegressor(max_iter=20, random_state=0),
    ]


def classifiers():
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )
    from sklearn.tree import DecisionTreeClassifier

    return [
        DecisionTreeClassifier(max_depth=5, random_state=0),
        RandomForestClassifier(n_estimators=15, max_depth=5, random_state=0),
        ExtraTreesClassifier(n_estimators=10, max_depth=5, random_state=0),
        GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0),
        HistGradientBoostingClassifier(max_iter=15, random_state=0),
    ]


def convert_ml(est, x, name):
    """A LightGBM or XGBoost model as ONNX (onnxmltools, ai.onnx.ml opset of ONNX opset 15)."""
    from onnxmltools.convert import convert_lightgbm, convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType

    types = [("X", FloatTensorType([None, x.shape[1]]))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "lightgbm":
            onx = convert_lightgbm(est, initial_types=types, target_opset=15, zipmap=False)
        else:
            onx = convert_xgboost(est, initial_types=types, target_opset=15)
    return onx.SerializeToString()


# Two trees over features 0 and 1:
#   tree 0: x0 <= 0.5 ? (leaf 1: 1.0) : (x1 <= 0 ? leaf 3: 2.0 : leaf 4: -3.0)
#   tree 1: x1 < 1 ? leaf 1: 10.0 : leaf 2: 20.0
TREES = dict(
    nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1],
    nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2],
    nodes_featureids=[0, 0, 1, 0, 0, 1, 0, 0],
    nodes_values=[0.5, 0, 0.0, 0, 0, 1.0, 0, 0],
    nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"],
    nodes_truenodeids=[1, 0, 3, 0, 0, 1, 0, 0],
    nodes_falsenodeids=[2, 0, 4, 0, 0, 2, 0, 0],
)
LEAVES = dict(
    target_treeids=[0, 0, 0, 1, 1],
    target_nodeids=[1, 3, 4, 1, 2],
    target_ids=[0, 0, 0, 0, 0],
    target_weights=[1.0, 2.0, -3.0, 10.0, 20.0],
    n_targets=1,
)
XS = np.array([[0.0, 0.0], [1.0, -1.0], [1.0, 0.5], [0.2, 2.0], [np.nan, 0.0]], np.float32)


def leaf_values(x):
    """The leaf weight each row of x reaches in tree 0 and in tree 1 of TREES."""
    t0 = np.where(x[:, 0] <= 0.5, 1.0, np.where(x[:, 1] <= 0, 2.0, -3.0))
    t1 = np.where(x[:, 1] < 1, 10.0, 20.0)
    return t0, t1


def v5_model(x, modes, splits, members=None, **extra):
    """TreeEnsemble (ai.onnx.ml 5): one tree, node 0 on feature 0 (mode modes[0]), its false
    child node 1 on feature 1 (modes[1]); leaves 0..2 weigh 1, 2, 3."""
    attrs = dict(
        tree_roots=[0],
        nodes_featureids=[0, 1],
        nodes_splits=numpy_helper.from_array(np.array(splits, x.dtype), "s"),
        nodes_modes=numpy_helper.from_array(np.array(modes, np.uint8), "m"),
        nodes_truenodeids=[0, 1],
        nodes_trueleafs=[1, 1],
        nodes_falsenodeids=[1, 2],
        nodes_falseleafs=[0, 1],
        leaf_targetids=[0, 0, 0],
        leaf_weights=numpy_helper.from_array(np.array([1, 2, 3], x.dtype), "w"),
        n_targets=1,
    )
    if members is not None:
        attrs["membership_values"] = numpy_helper.from_array(np.array(members, x.dtype), "mv")
    attrs.update(extra)
    elem = {
        np.dtype(np.float32): F,
        np.dtype(np.float64): D,
        np.dtype(np.float16): TensorProto.FLOAT16,
    }
    return ml_model("TreeEnsemble", {"X": x}, [("y", elem[x.dtype])], ml_opset=5, **attrs)
