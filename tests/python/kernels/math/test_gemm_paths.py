"""Gemm and MatMul by product shape: a few rows against a large weight matrix stored
[N, K] (Gemm transB=1, a classifier head) runs transposed through the narrow dot-product
kernel on AVX-512 and through the BLAS elsewhere; the other shapes through the BLAS or
the packed kernel. Each against numpy in float64: float32 sums of up to 1024 products of
values in [-1, 1], rtol 1e-5 and atol 1e-4."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto

F = TensorProto.FLOAT


def gemm_model(w, bias, **attrs):
    weights = {"W": w} if bias is None else {"W": w, "C": bias}
    inputs = [("a", F)] + [(n, None) for n in weights]
    return node_model("Gemm", inputs, [("y", F)], opset=13, initializers=weights, **attrs)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "m, n, k",
    [
        (32, 2053, 1024),  # a classifier head: the weights-bound path
        (1, 4100, 600),
        (5, 2000, 256),
        (64, 300, 128),  # too narrow for it (n < 4m): the BLAS or the packed kernel
        (3, 50, 20),  # small
    ],
)
def test_gemm_trans_b_against_numpy(m, n, k, threads):
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    w = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    bias = rng.uniform(-1, 1, n).astype(np.float32)
    s = onnx_light.RuntimeSession(
        gemm_model(w, bias, transB=1, alpha=0.5, beta=2.0), intra_op_threads=threads
    )
    (y,) = s.run(None, {"a": a})
    want = 0.5 * (a.astype(np.float64) @ w.astype(np.float64).T) + 2.0 * bias
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


def test_gemm_trans_a_and_b_against_numpy():
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (512, 16)).astype(np.float32)  # stored [K, M]
    w = rng.uniform(-1, 1, (1500, 512)).astype(np.float32)
    (y,) = onnx_light.RuntimeSession(gemm_model(w, None, transA=1, transB=1)).run(None, {"a": a})
    np.testing.assert_allclose(
        y, a.astype(np.float64).T @ w.astype(np.float64).T, rtol=1e-5, atol=1e-4
    )


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((1, 6, 64, 64), (1, 6, 64, 64)),  # attention heads: whole products per thread
        ((2, 3, 40, 64), (3, 64, 96)),  # b broadcast over the first batch dim
        ((4, 1, 33, 17), (1, 5, 17, 40)),  # both broadcast
        ((8, 128, 64), (8, 64, 128)),  # heads of 128 rows
    ],
)
def test_batched_matmul_against_numpy(a_shape, b_shape, threads):
    # Batches of small products run whole, split between threads; each batch must take
    # its own offsets into a and b under broadcasting.
    rng = np.random.default_rng(sum(a_shape) + sum(b_shape))
    a = rng.uniform(-1, 1, a_shape).astype(np.float32)
    b = rng.uniform(-1, 1, b_shape).astype(np.float32)
    model = node_model("MatMul", [("a", F), ("b", F)], [("y", F)], opset=13)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    got = s.run(None, {"a": a, "b": b})[0]
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
