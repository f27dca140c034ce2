"""ai.onnx.ml TreeEnsemble (version 5): float, double and float16, BRANCH_MEMBER sets, against
ONNX Runtime and the expected leaves; its bad trees."""

from __future__ import annotations

import numpy as np
import pytest
from _ml import assert_same, run_both
from _trees import TOL, v5_model

import onnx_light


@pytest.mark.parametrize("t", [np.float32, np.float64, np.float16])
def test_tree_ensemble_v5(t):
    x = np.array([[0.0, 0.0], [1.0, -1.0], [1.0, 5.0], [3.0, 1.0]], t)
    model = v5_model(x, [0, 1], [0.5, 0.0])  # x0 <= 0.5 -> 1; x1 < 0 -> 2; else 3
    y = onnx_light.RuntimeSession(model).run(None, {"X": x})[0]
    assert y.dtype == t
    np.testing.assert_array_equal(y.ravel(), [1, 2, 3, 3])
    if t != np.float16:  # ORT 1.30's shape inference refuses float16 splits ("type 1")
        light, ref = run_both(model, {"X": x})
        assert_same(light, ref, **TOL)


def test_tree_ensemble_v5_branch_member():
    x = np.array([[2.0, 0.0], [7.0, -1.0], [4.0, 1.0]], np.float32)
    # node 0: x0 in {2, 4} -> leaf 0; node 1: x1 in {-1} -> leaf 1; else leaf 2
    model = v5_model(x, [6, 6], [0.0, 0.0], members=[2.0, 4.0, np.nan, -1.0, np.nan])
    light, ref = run_both(model, {"X": x})
    assert_same(light, ref, **TOL)
    np.testing.assert_array_equal(light[0].ravel(), [1, 2, 1])


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(tree_roots=[5]), "tree_roots\\[0\\] = 5 is no node index"),
        (dict(nodes_falsenodeids=[1, 7]), "node 1 points to leaf 7, outside \\[0, 3\\)"),
        (dict(nodes_falsenodeids=[0, 2], nodes_falseleafs=[0, 1]), "node 0 is reached twice"),
        (dict(aggregate_function=7), "aggregate_function must be 0..3, got 7"),
        (dict(post_transform=9), "post_transform must be 0..4, got 9"),
    ],
)
def test_bad_v5_trees_are_clear_errors(change, message):
    x = np.zeros((2, 2), np.float32)
    s = onnx_light.RuntimeSession(v5_model(x, [0, 1], [0.5, 0.0], **change))
    for _ in range(2):
        with pytest.raises(ValueError, match=message):
            s.run(None, {"X": x})
