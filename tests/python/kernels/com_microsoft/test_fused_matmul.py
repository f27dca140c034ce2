"""com.microsoft FusedMatMul and TransposeMatMul
(src/onnx_light/kernels/com_microsoft/fused_matmul.cc): alpha, transA/transB and
transBatchA/transBatchB over ranks 1 to 4 with broadcast batches, against a float64 numpy
reference of the documented semantics and ONNX Runtime."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _graphs import D, F
from _ms import check_vs_ort, light_run, ms_model, randn


def prepare(x, trans_batch, trans):
    if x.ndim >= 3 and trans_batch:
        x = np.moveaxis(x, 0, -2)
    if x.ndim >= 2 and trans:
        x = np.swapaxes(x, -1, -2)
    return x


def fused_matmul(a, b, alpha, ta, tb, tba, tbb):
    a2, b2 = prepare(a.astype(np.float64), tba, ta), prepare(b.astype(np.float64), tbb, tb)
    return alpha * np.matmul(a2, b2)


# (A shape, B shape) as the product sees them, before any transposition.
SHAPES = [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((2, 3, 6, 4), (2, 3, 4, 5)),
    ((2, 1, 6, 4), (3, 4, 5)),
    ((4,), (4, 5)),
    ((2, 3, 4), (4,)),
    ((1, 7, 8), (2, 8, 1)),
    ((5, 1), (1, 3)),
]
# With transBatch, ORT wants the same rank >= 3 (its batch dims may still broadcast).
BATCH_SHAPES = [((2, 3, 6, 4), (2, 3, 4, 5)), ((3, 2, 4), (3, 4, 5)), ((1, 3, 5, 4), (2, 3, 4, 6))]


def stored(shape, trans_batch, trans):
    """The shape to store so that prepare() gives `shape`."""
    s = list(shape)
    if len(s) >= 2 and trans:
        s[-1], s[-2] = s[-2], s[-1]
    if len(s) >= 3 and trans_batch:
        s = [s[-2]] + s[:-2] + [s[-1]]
    return tuple(s)


def check(shapes, ta, tb, tba, tbb, ort=True):
    rng = np.random.default_rng(20)
    a_shape, b_shape = stored(shapes[0], tba, ta), stored(shapes[1], tbb, tb)
    a, b = randn(rng, *a_shape), randn(rng, *b_shape)
    attrs = dict(alpha=0.125, transA=ta, transB=tb, transBatchA=tba, transBatchB=tbb)
    m = ms_model("FusedMatMul", [("a", F), ("b", F)], [("y", F)], **attrs)
    feeds = {"a": a, "b": b}
    (y,) = check_vs_ort(m, feeds, rtol=1e-5, atol=1e-5) if ort else light_run(m, feeds)
    want = fused_matmul(a, b, 0.125, ta, tb, tba, tbb)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_fused_matmul_matches_numpy_and_ort(shapes, ta, tb):
    # transA with a 1-D B: ORT 1.30 reads A untransposed; onnx-light follows the documented
    # semantics (docs/conformance.md), checked against numpy only.
    check(shapes, ta, tb, 0, 0, ort=not (ta and len(shapes[1]) == 1 and len(shapes[0]) > 2))


@pytest.mark.parametrize("shapes", BATCH_SHAPES)
@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 1)])
@pytest.mark.parametrize("tba,tbb", [(1, 0), (0, 1), (1, 1)])
def test_fused_matmul_trans_batch_matches_numpy_and_ort(shapes, ta, tb, tba, tbb):
    check(shapes, ta, tb, tba, tbb)


@pytest.mark.parametrize("heads,seq,past", [(12, 7, 0), (4, 1, 33), (2, 128, 0)])
def test_fused_matmul_as_attention_scores(heads, seq, past):
    # Q [1, h, s, 64] @ K[1, h, s+past, 64]^T / 8: the shape ORT's optimizer gives it.
    rng = np.random.default_rng(21)
    q, k = randn(rng, 1, heads, seq, 64), randn(rng, 1, heads, seq + past, 64)
    m = ms_model("FusedMatMul", [("q", F), ("k", F)], [("y", F)], alpha=0.125, transB=1)
    (y,) = check_vs_ort(m, {"q": q, "k": k}, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        y, 0.125 * q.astype(np.float64) @ np.swapaxes(k, -1, -2), rtol=1e-5, atol=1e-5
    )


def test_transpose_matmul_and_double():
    rng = np.random.default_rng(22)
    a, b = randn(rng, 2, 5, 3), randn(rng, 2, 4, 5)
    m = ms_model("TransposeMatMul", [("a", F), ("b", F)], [("y", F)], transA=1, transB=1)
    (y,) = check_vs_ort(m, {"a": a, "b": b}, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, fused_matmul(a, b, 1, 1, 1, 0, 0), rtol=1e-5, atol=1e-5)
    m = ms_model("FusedMatMul", [("a", D), ("b", D)], [("y", D)], alpha=2.0, transA=1)
    a64, b64 = a.astype(np.float64), np.swapaxes(b, -1, -2).astype(np.float64)
    (y,) = check_vs_ort(m, {"a": a64, "b": b64}, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y, fused_matmul(a64, b64, 2, 1, 0, 0, 0), rtol=1e-12)


@pytest.mark.parametrize(
    "a,b,attrs,message",
    [
        ((3, 4), (5, 6), {}, "do not align"),
        ((3, 4), (3, 5), {"transA": 0}, "do not align"),
        ((4, 3), (5, 4), {"transA": 1}, r"do not align for the product \(after transA"),
        ((2, 3, 4), (3, 4, 5), {}, "cannot be broadcast"),
        ((), (2, 2), {}, "rank >= 1"),
        ((3, 4), (4, 5), {"transBatchA": 1}, "need inputs of the same rank >= 3"),
        ((2, 3, 4), (4, 5), {"transBatchB": 1}, "need inputs of the same rank >= 3"),
    ],
)
def test_fused_matmul_refuses_shapes_that_do_not_multiply(a, b, attrs, message):
    m = ms_model("FusedMatMul", [("a", F), ("b", F)], [("y", F)], **attrs)
    feeds = {"a": np.ones(a, np.float32), "b": np.ones(b, np.float32)}
    with pytest.raises(ValueError, match=f"FusedMatMul, domain com.microsoft.*{message}"):
        light_run(m, feeds)
