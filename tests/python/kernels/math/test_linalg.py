"""Gemm and MatMul by product shape: a few rows against a large weight matrix stored
[N, K] (Gemm transB=1, a classifier head) runs transposed through the narrow dot-product
kernel on AVX-512 and through the BLAS elsewhere; the other shapes through the BLAS or
the packed kernel. Each against numpy in float64: float32 sums of up to 1024 products of
values in [-1, 1], rtol 1e-5 and atol 1e-4."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from _graphs import F, node_model
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import TensorProto


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


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m, n, k", [(37, 29, 45), (130, 131, 64), (12, 8, 3), (64, 300, 200)])
def test_matmul_with_b_transposed_at_run_time(m, n, k, threads):
    """B^T a graph input (attention's K^T; not transposed once per session): below AVX-512
    it is transposed in 4 x 4 blocks for the in-place kernel, elsewhere gathered by the
    packed kernel; edges of the blocks (odd sizes) and both thread counts, against numpy."""
    rng = np.random.default_rng(m * n + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    bt = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    model = node_model("Gemm", [("a", F), ("b", F)], [("y", F)], opset=13, transB=1)
    (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"a": a, "b": bt})
    np.testing.assert_allclose(
        y, a.astype(np.float64) @ bt.astype(np.float64).T, rtol=1e-5, atol=1e-4
    )


CHILD_RUN = (
    "import sys, numpy as np, onnx_light\n"
    "s = onnx_light.RuntimeSession(open(sys.argv[1], 'rb').read(),"
    " intra_op_threads=int(sys.argv[4]))\n"
    "np.save(sys.argv[3], s.run(None, dict(np.load(sys.argv[2])))[0])\n"
)


def run_in_child(model, feeds, threads, target, tmp_path):
    """The model's first output, run in a child process at ONNX_LIGHT_SIMD_TARGET=target."""
    package = os.path.dirname(os.path.dirname(onnx_light.__file__))
    env = dict(os.environ, ONNX_LIGHT_SIMD_TARGET=target)
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    paths = [tmp_path / "m.onnx", tmp_path / "feeds.npz", tmp_path / "y.npy"]
    paths[0].write_bytes(model if isinstance(model, bytes) else model.SerializeToString())
    np.savez(paths[1], **feeds)
    subprocess.run(
        [sys.executable, "-c", CHILD_RUN, *map(str, paths), str(threads)], env=env, check=True
    )
    return np.load(paths[2])


@pytest.mark.parametrize("target", [None, "AVX2"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "m, n, k",
    [(1, 64, 64), (2, 96, 37), (1, 4100, 1027), (2, 4133, 130), (1, 8200, 70), (2, 50, 3000)],
)
def test_one_or_two_rows_times_a_b_given_at_run_time(m, n, k, threads, target, tmp_path):
    """A decoder step's or a recurrent cell's product: one or two rows of a against a B
    that is an input. Small B: each row's k rows of B summed in four interleaved sets; a B
    over 512 KiB: streamed row after row into blocks of c (16 KiB). Column tails shorter
    than a vector and than a tile, k not a multiple of 4, both thread counts, the AVX-512
    and AVX2 kernels (a child process at AVX2), against numpy in float64."""
    rng = np.random.default_rng(m * n + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    model = node_model("MatMul", [("a", F), ("b", F)], [("y", F)], opset=13)
    want = a.astype(np.float64) @ b.astype(np.float64)
    if target is None:
        (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(
            None, {"a": a, "b": b}
        )
    else:
        y = run_in_child(model, {"a": a, "b": b}, threads, target, tmp_path)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4 * np.sqrt(k / 64))


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


@pytest.mark.parametrize(
    "dtype,etype", [(np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64)]
)
def test_integer_matmul_matches_numpy(dtype, etype):
    rng = np.random.default_rng(5)
    a = rng.integers(-(2**20), 2**20, size=(2, 3, 7)).astype(dtype)
    b = rng.integers(-(2**20), 2**20, size=(7, 5)).astype(dtype)
    (y,) = session("MatMul", [("a", etype), ("b", etype)], out_type=etype).run(
        None, {"a": a, "b": b}
    )
    np.testing.assert_array_equal(y, np.matmul(a, b))  # both wrap on overflow


def test_float16_matmul_rounds_once_from_float32():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 9)).astype(np.float16)
    b = rng.standard_normal((9, 3)).astype(np.float16)
    s = session(
        "MatMul",
        [("a", TensorProto.FLOAT16), ("b", TensorProto.FLOAT16)],
        out_type=TensorProto.FLOAT16,
    )
    (y,) = s.run(None, {"a": a, "b": b})
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
    # float32 accumulation rounded once to float16: within 1 float16 ULP of the exact result.
    np.testing.assert_array_max_ulp(y, ref, maxulp=1)


def test_legacy_broadcast_of_gemm_follows_opset_6():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = np.array([1.0, -1.0], np.float32)
    (y,) = session("Gemm", [("a", F), ("b", F), ("c", F)], opset=6, broadcast=1).run(
        None, {"a": a.T.copy(), "b": a[:, :2].copy(), "c": c}
    )
    np.testing.assert_allclose(y, a.T @ a[:, :2] + c, rtol=1e-6)


BAD_INPUTS = [
    (
        "Gemm",
        [("a", F), ("b", F), ("c", F)],
        {"opset": 6},
        {"a": f32(2, 3), "b": f32(3, 4), "c": f32(4)},
        "must be \\[2, 4\\] when broadcast is 0",
    ),
    ("MatMul", [("a", F), ("b", F)], {}, {"a": f32(2, 3), "b": f32(4, 2)}, "do not align"),
    (
        "MatMul",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 2, 3), "b": f32(3, 3, 2)},
        "cannot be broadcast",
    ),
    (
        "Gemm",
        [("a", F), ("b", F)],
        {},
        {"a": f32(2, 3), "b": f32(4, 2)},
        "inner dimensions 3 and 4 differ",
    ),
    (
        "Gemm",
        [("a", F), ("b", F), ("c", F)],
        {},
        {"a": f32(2, 3), "b": f32(3, 2), "c": f32(3, 2)},
        "cannot be broadcast",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)
