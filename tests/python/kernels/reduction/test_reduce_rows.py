"""float32 ReduceSum, ReduceMean and ReduceSumSquare over one block of axes sum in SIMD
doubles: trailing axes (the norms of transformers) as contiguous rows, a middle block (a
channel axis) as column sums; other axes take the general walk. All against numpy in
float64 rounded once to float32: rtol 1e-6 (the double sums differ only in order), at one
and two threads (outputs split between threads)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto

CASES = [
    ((1, 64, 512), [-1], 1),  # the RMS norm of a T5 layer
    ((3, 5, 7), [2], 0),
    ((2, 3, 4, 37), [-2, -1], 1),  # a two-axis suffix
    ((2, 1, 9), [1, 2], 0),  # with a unit axis
    ((4, 6, 5), [1], 1),  # a middle axis: column sums with a scalar tail
    ((1, 512, 256), [1], 0),  # magika's channel sums: one image, columns split for threads
    ((3, 70, 37), [0], 1),  # a leading block
    ((2, 5, 3, 67), [1, 2], 0),  # a two-axis middle block, 67 columns (vector tails)
    ((2, 1, 9, 1, 33), [2, 3], 1),  # unit axes on both sides of the block
    ((300, 1000), [1], 0),  # many rows: rows split for threads
    ((4, 6, 5), [0, 2], 0),  # not one block: the general walk
    ((5, 3), [0, 1], 0),  # everything
]

REFS = {
    "ReduceSum": lambda x, ax, k: np.sum(x, axis=ax, keepdims=k),
    "ReduceMean": lambda x, ax, k: np.mean(x, axis=ax, keepdims=k),
    "ReduceSumSquare": lambda x, ax, k: np.sum(x * x, axis=ax, keepdims=k),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", sorted(REFS))
@pytest.mark.parametrize("shape,axes,keepdims", CASES)
def test_block_reductions_match_numpy(op, shape, axes, keepdims, threads):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    F = TensorProto.FLOAT
    model = node_model(
        op,
        [("x", F), ("axes", None)],
        [("y", F)],
        opset=18,
        initializers={"axes": np.array(axes, np.int64)},
        keepdims=keepdims,
    )
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = REFS[op](x.astype(np.float64), tuple(axes), bool(keepdims)).astype(np.float32)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
