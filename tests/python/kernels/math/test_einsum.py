"""Einsum (src/onnx_light/kernels/math/einsum.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, I, run_one

EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]),
    ("Ab,bA->A", [(3, 2), (2, 3)]),
    ("i...,i...->...", [(2, 3, 1), (2, 1, 4)]),
]


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e for e, _ in EINSUM])
@pytest.mark.parametrize("dtype, onnx_type", [(np.float64, D), (np.int64, I)])
def test_einsum_matches_numpy(eq, shapes, dtype, onnx_type):
    rng = np.random.default_rng(5)
    ops = [rng.integers(-5, 6, s).astype(dtype) for s in shapes]
    names = [f"x{i}" for i in range(len(ops))]
    (y,) = run_one(
        "Einsum",
        [(n, onnx_type) for n in names],
        dict(zip(names, ops)),
        outputs=[("y", onnx_type)],
        opset=12,
        equation=eq,
    )
    want = np.einsum(eq, *ops)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-12)


@pytest.mark.parametrize(
    "eq, shapes, match",
    [
        ("ij,jk->ik", [(3, 4), (5, 5)], "does not match"),
        ("ij->ik", [(3, 4)], "output label 'k' is not an input label"),
        ("ij->ii", [(3, 3)], "appears twice"),
        ("ijk->i", [(3, 4)], "has rank 2"),
        ("i$->i", [(3, 4)], "unexpected character"),
        ("ij,jk->ik", [(3, 4)], "has 2 operands, the node 1"),
    ],
)
def test_einsum_errors(eq, shapes, match):
    names = [f"x{i}" for i in range(len(shapes))]
    feeds = {n: np.ones(s, np.float32) for n, s in zip(names, shapes)}
    with pytest.raises(ValueError, match=match):
        run_one("Einsum", [(n, F) for n in names], feeds, opset=12, equation=eq)
