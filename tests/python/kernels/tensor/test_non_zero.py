"""NonZero (src/onnx_light/kernels/tensor/non_zero.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I8, U8, B, D, F, H, I, S, run_node


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


def _mixed(shape, rng):
    x = rng.standard_normal(shape).astype(np.float32)
    x[rng.random(shape) < 0.5] = 0.0
    return x


@pytest.mark.parametrize(
    "elem, make",
    [
        (B, lambda r: r.random((4, 5, 6)) < 0.3),
        (F, lambda r: np.array([[np.nan, -0.0, 0.0, 1e-45], [0.0, -2.0, np.inf, 0.0]], np.float32)),
        (F, lambda r: _mixed((3, 1, 7, 2), r)),
        (F, lambda r: _mixed((1000,), r)),
        (F, lambda r: np.zeros((3, 0, 2), np.float32)),
        (F, lambda r: np.zeros((2, 3), np.float32)),
        (H, lambda r: _mixed((5, 9), r).astype(np.float16)),
        (I, lambda r: r.integers(-1, 2, (6, 11))),
        (U8, lambda r: r.integers(0, 2, (2, 3, 4)).astype(np.uint8)),
        (I8, lambda r: r.integers(-1, 2, (17,)).astype(np.int8)),
        (D, lambda r: _mixed((4, 4), r).astype(np.float64)),
        (S, lambda r: np.array([["", "a"], ["bc", ""], ["", ""]], dtype=object)),
    ],
)
def test_nonzero_every_dtype_and_rank_matches_numpy(elem, make):
    # Coordinates come from a per-row odometer and a branch-free write position: ranks 1-4,
    # empty axes, all-zero inputs, NaN (non-zero), -0.0 (zero), strings ("" is zero).
    x = make(np.random.default_rng(3))
    (y,) = run("NonZero", [("x", elem)], {"x": x}, outs=[("y", I)])
    flags = x != "" if elem == S else x != 0
    want = np.array(np.nonzero(flags)).reshape(x.ndim, -1)
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, want)
