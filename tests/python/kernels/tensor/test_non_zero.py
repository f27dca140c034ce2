"""NonZero (src/onnx_light/kernels/tensor/non_zero.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_node


def run(op, inputs, feeds, outs=(("y", F),), opset=17, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


@pytest.mark.parametrize(
    "x",
    [
        np.array([[0, 2], [3, 0], [0, 0]], np.float32),
        np.zeros((2, 0), np.float32),
        np.array(5.0, np.float32),
    ],
)
def test_nonzero_matches_numpy(x):
    (y,) = run("NonZero", [("x", F)], {"x": x}, outs=[("y", I)])
    want = np.array(np.nonzero(np.atleast_1d(x)))
    np.testing.assert_array_equal(y, want.reshape(max(x.ndim, 1), -1))
