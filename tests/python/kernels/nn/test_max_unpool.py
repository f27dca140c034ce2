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
