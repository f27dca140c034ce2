"""MaxUnpool (src/onnx_light/kernels/nn/max_unpool.cc): MaxPool's values put back where
its Indices say, zeros elsewhere, against a numpy scatter; an index outside the output is
a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_one


def test_maxunpool_inverts_maxpool_indices():
    x = np.random.default_rng(14).standard_normal((1, 2, 4, 4)).astype(np.float32)
    pooled, ind = run_one(
        "MaxPool",
        [("x", F)],
        {"x": x},
        outputs=[("y", F), ("i", I)],
        opset=12,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    (y,) = run_one(
        "MaxUnpool",
        [("p", F), ("i", I)],
        {"p": pooled, "i": ind},
        opset=11,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    want = np.zeros_like(x).ravel()
    want[ind.ravel()] = pooled.ravel()
    np.testing.assert_array_equal(y, want.reshape(x.shape))
    with pytest.raises(ValueError, match="index 99 is outside"):
        run_one(
            "MaxUnpool",
            [("p", F), ("i", I)],
            {"p": pooled, "i": np.full(ind.shape, 99)},
            opset=11,
            kernel_shape=[2, 2],
            strides=[2, 2],
        )


def unpool(pooled, ind, output_shape=None):
    inputs = [("p", F), ("i", I)]
    feeds = {"p": pooled, "i": ind}
    if output_shape is not None:
        inputs.append(("s", I))
        feeds["s"] = np.array(output_shape)
    return run_one("MaxUnpool", inputs, feeds, opset=11, kernel_shape=[2, 2], strides=[2, 2])[0]


def test_maxunpool_indices_checked_as_they_are_scattered():
    # The indices are checked while the values are scattered: a negative one, or one past
    # the end after valid ones, is a ValueError naming it; the next run is unaffected.
    pooled = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    ind = np.array([0, 2, 8, 10, 16, 18, 24, 26]).reshape(1, 2, 2, 2)
    for bad, value in [(0, -1), (7, 32), (3, -(2**62))]:
        wrong = ind.copy()
        wrong.flat[bad] = value
        with pytest.raises(ValueError, match=f"index {value} is outside \\[0, 32\\)"):
            unpool(pooled, wrong)
    y = unpool(pooled, ind)
    want = np.zeros(32, np.float32)
    want[ind.ravel()] = pooled.ravel()
    np.testing.assert_array_equal(y, want.reshape(1, 2, 4, 4))


def test_maxunpool_repeated_index_keeps_the_last_and_output_shape_adds_room():
    pooled = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    ind = np.array([5, 5, 8, 10, 16, 18, 31, 31]).reshape(1, 2, 2, 2)
    y = unpool(pooled, ind, output_shape=[1, 2, 5, 6])
    # Flat index i of the inferred [1, 2, 4, 4] layout lands at (c, h, w) of the larger one.
    want = np.zeros((1, 2, 5, 6), np.float32)
    for v, i in zip(pooled.ravel(), ind.ravel()):
        c, h, w = i // 16, i % 16 // 4, i % 4
        want[0, c, h, w] = v
    np.testing.assert_array_equal(y, want)
    assert y[0, 0, 1, 1] == 2 and y[0, 1, 3, 3] == 8
