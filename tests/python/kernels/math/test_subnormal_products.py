"""Products with subnormal weights: the GEMM and convolution kernels run with subnormals
read and made as zero (FTZ/DAZ for the kernel's duration, simd/denormals.h), because a
multiply-add that meets one takes a microcode assist on Intel cores (~100x slower). The
results differ from exact float arithmetic only below FLT_MIN; the mode never reaches the
caller's thread or the elementwise kernels, which keep subnormals exact.

Oracle: numpy in float64 (the subnormal terms contribute below 1e-37 there); tolerance
1e-5 relative to the sum of |products| per output."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, node_model

import onnx_light
from onnx_light.onnx import helper, numpy_helper

TINY = np.float32(np.finfo(np.float32).tiny)  # FLT_MIN


def subnormal_weights(rng, shape, dead_rows=0):
    """Weights with a third of them subnormal and `dead_rows` whole first-axis slices
    (dead filters) between 1e-42 and 1e-30, whose sums stay subnormal without FTZ."""
    w = rng.uniform(-1, 1, shape).astype(np.float32)
    mask = rng.random(shape) < 0.33
    w[mask] = (rng.uniform(1, 1000, mask.sum()) * 1e-42).astype(np.float32)
    for r in range(dead_rows):
        w[r] = (rng.uniform(-1, 1, w[r].shape) * 1e-30).astype(np.float32)
    assert ((np.abs(w) < TINY) & (w != 0)).any()
    return w


def conv_model(w, pads):
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=pads)],
        "g",
        [helper.make_tensor_value_info("x", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(w, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_reference(x, w, pads):
    """Conv (2-D, stride 1) in float64: y and the sum of |products| per output."""
    x64 = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    m, c, kh, kw = w.shape
    oh, ow = x64.shape[2] - kh + 1, x64.shape[3] - kw + 1
    cols = np.lib.stride_tricks.sliding_window_view(x64[0], (kh, kw), axis=(1, 2))
    cols = cols[:, :oh, :ow].transpose(1, 2, 0, 3, 4).reshape(oh * ow, c * kh * kw)
    w2 = w.reshape(m, -1).astype(np.float64)
    return (cols @ w2.T).T.reshape(1, m, oh, ow), (np.abs(cols) @ np.abs(w2).T).T.reshape(
        1, m, oh, ow
    )


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "xs, ws, pads",
    [
        ((1, 20, 24, 60), (40, 20, 24, 3), (0, 1, 0, 1)),  # a tall window (the EEG net's)
        ((1, 32, 20, 20), (48, 32, 3, 3), (1, 1, 1, 1)),
        ((1, 16, 30, 30), (8, 16, 3, 3), (1, 1, 1, 1)),  # few filters: direct
        ((1, 64, 9, 9), (64, 64, 1, 1), (0, 0, 0, 0)),
    ],
)
def test_convolution_with_subnormal_weights(xs, ws, pads, threads):
    rng = np.random.default_rng(sum(xs) + sum(ws))
    w = subnormal_weights(rng, ws, dead_rows=3)
    x = np.maximum(rng.standard_normal(xs), 0).astype(np.float32)
    (y,) = onnx_light.RuntimeSession(
        conv_model(w, pads).SerializeToString(), intra_op_threads=threads
    ).run(None, {"x": x})
    want, mag = conv_reference(x, w, pads)
    assert np.all(np.abs(y - want) <= 1e-5 * mag + 1e-30)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m, k, n", [(1, 300, 200), (2, 700, 900), (64, 256, 300)])
def test_matmul_with_subnormal_weights(m, k, n, threads):
    rng = np.random.default_rng(m + k + n)
    b = subnormal_weights(rng, (k, n))
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    model = node_model("MatMul", [("a", F), ("b", F)], [("y", F)], opset=13)
    for feeds in ({"a": a, "b": b}, {"a": b.T.copy(), "b": a.T.copy()}):
        (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, feeds)
        x, w = (feeds["a"].astype(np.float64), feeds["b"].astype(np.float64))
        np.testing.assert_array_less(np.abs(y - x @ w), 1e-5 * (np.abs(x) @ np.abs(w)) + 1e-30)


def test_the_callers_floating_point_mode_is_left_as_it_was():
    """After products that ran with FTZ/DAZ, the calling thread makes and reads subnormals
    again (numpy here), and an elementwise node still returns exact subnormals."""
    rng = np.random.default_rng(9)
    w = subnormal_weights(rng, (48, 32, 3, 3))
    x = rng.standard_normal((1, 32, 20, 20)).astype(np.float32)
    for threads in (1, 2):
        onnx_light.RuntimeSession(
            conv_model(w, (1, 1, 1, 1)).SerializeToString(), intra_op_threads=threads
        ).run(None, {"x": x})
        half = np.float32(TINY) * np.float32(0.25)  # numpy, on this thread
        assert 0 < half < TINY
        mul = node_model("Mul", [("a", F), ("b", F)], [("y", F)], opset=14)
        a = np.full(1000, TINY, np.float32)
        (y,) = onnx_light.RuntimeSession(mul, intra_op_threads=threads).run(
            None, {"a": a, "b": np.full(1000, 0.25, np.float32)}
        )
        np.testing.assert_array_equal(y, a * np.float32(0.25))
        assert (y > 0).all() and (y < TINY).all()
