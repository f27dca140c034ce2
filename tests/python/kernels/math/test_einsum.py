"""Einsum (src/onnx_light/kernels/math/einsum.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, H, I, run_one

import onnx_light

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


# Two-operand contractions take the batched matrix product (math/einsum_contract.cc): each
# role's labels read in place, gathered, the output written directly, transposed or
# scattered, broadcast batches, a matrix-vector product, an outer product, a dot, empty
# dimensions; and the equations it leaves to the generic sum (a label summed in one
# operand alone, a diagonal, three operands).
CONTRACTIONS = [
    ("bhqd,bhkd->bhqk", [(2, 4, 33, 16), (2, 4, 40, 16)]),  # attention scores, B^T
    ("bhqk,bhkd->bhqd", [(2, 4, 33, 40), (2, 4, 40, 16)]),  # attention values
    ("bct,bcs->bts", [(2, 64, 50), (2, 64, 70)]),  # the diffusion UNet's: A^T
    ("bts,bcs->bct", [(2, 50, 70), (2, 64, 70)]),  # output transposed
    ("bqhd,bkhd->bhqk", [(2, 9, 3, 8), (2, 11, 3, 8)]),  # batch label in the middle
    ("bhqk,bkhd->bqhd", [(2, 3, 9, 11), (2, 11, 3, 8)]),  # output interleaved: scattered
    ("ij,jk->ki", [(30, 20), (20, 25)]),
    ("ij,ik->jk", [(30, 20), (30, 25)]),
    ("ijk,jkl->il", [(5, 6, 7), (6, 7, 8)]),  # two K labels, collapsed in place
    ("ikj,jkl->il", [(5, 7, 6), (6, 7, 8)]),  # two K labels in other orders: B gathered
    ("abc,cd->abd", [(3, 4, 5), (5, 6)]),  # two M labels
    ("...ij,...jk->...ik", [(3, 1, 5, 6), (4, 6, 7)]),  # broadcast batch
    ("ij,jk", [(4, 5), (5, 3)]),  # implicit output
    ("ij,j->i", [(17, 33), (33,)]),
    ("i,j->ij", [(17,), (19,)]),
    ("i,i->", [(100,), (100,)]),
    ("ij,jk->ik", [(3, 0), (0, 4)]),  # empty K: zeros
    ("ij,jk->ik", [(0, 5), (5, 4)]),  # empty output
    ("ij,jk->k", [(3, 4), (4, 5)]),  # i summed in A alone: generic
    ("ii,ij->ij", [(4, 4), (4, 5)]),  # a diagonal: generic
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),  # three operands: generic
]


@pytest.mark.parametrize("eq, shapes", CONTRACTIONS, ids=[e for e, _ in CONTRACTIONS])
@pytest.mark.parametrize(
    "dtype, onnx_type, tol",
    [(np.float32, F, 1e-5), (np.float64, D, 1e-12), (np.float16, H, 2e-3)],
    ids=["float", "double", "float16"],
)
@pytest.mark.parametrize("threads", [1, 2])
def test_contractions_match_float64_numpy(eq, shapes, dtype, onnx_type, tol, threads):
    """Against numpy's float64 einsum of the same (rounded) inputs: float within 1e-5
    absolute and relative (float32 sums of up to 128 products of values in [-1, 1]),
    double within 1e-12, float16 within 2e-3 (computed in float, rounded once: float16's
    half-ULP is 4.9e-4 relative)."""
    from onnx_light.onnx import helper

    rng = np.random.default_rng(11)
    ops = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    names = [f"x{i}" for i in range(len(ops))]
    node = helper.make_node("Einsum", names, ["y"], equation=eq)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, onnx_type, None) for n in names],
        [helper.make_tensor_value_info("y", onnx_type, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    session = onnx_light.RuntimeSession(model.SerializeToString(), intra_op_threads=threads)
    (y,) = session.run(None, dict(zip(names, ops)))
    want = np.einsum(eq, *[o.astype(np.float64) for o in ops])
    assert y.shape == want.shape and y.dtype == dtype
    np.testing.assert_allclose(y.astype(np.float64), want, atol=tol, rtol=tol)
