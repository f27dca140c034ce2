"""Convolutions of many small images (at most 32 output positions each) into many output
channels, computed transposed: each image's positions are the rows of the product and its
output channels the vector, the windows read in place through offsets (a zero-padded copy
of the image when the convolution pads), the weights packed once per session when they
are a constant (nn/conv2d_positions_f32.cc). Keras Conv1D stacks over short windows
(DeepCut: 400 windows of 21 characters into 100-200 filters) are the case.

Each against the float64 numpy reference of test_conv.py; float32 sums of up to ~600
products of values in [-1, 1]: rtol 1e-5, atol 1e-4. Every image's result is the same,
bit for bit, whatever the batch it runs in and however many threads run it."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F

import onnx_light
from onnx_light.onnx import helper, numpy_helper

from .test_conv import fused_residual_model, reference_padded

POSITIONS = [
    # (x shape, w shape, strides, pads (top, left, bottom, right), dilations)
    ((40, 32, 1, 21), (200, 32, 1, 8), (1, 1), (0, 0, 0, 0), (1, 1)),  # DeepCut: 14 positions
    ((40, 32, 1, 21), (150, 32, 1, 11), (1, 1), (0, 0, 0, 0), (1, 1)),  # 11: 5 + 6 rows
    ((40, 32, 1, 21), (100, 32, 1, 12), (1, 1), (0, 0, 0, 0), (1, 1)),  # 100: 64 + 3 vectors
    ((30, 32, 1, 21), (200, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),  # 1x1: one float a tap
    ((32, 64, 1, 24), (64, 64, 1, 3), (1, 1), (0, 1, 0, 1), (1, 1)),  # "same" pads: a copy
    ((8, 128, 1, 16), (256, 128, 1, 3), (1, 1), (0, 0, 0, 0), (1, 1)),  # k = 384: 2 blocks
    ((6, 20, 1, 40), (37, 20, 1, 5), (2, 2), (0, 2, 0, 1), (1, 1)),  # stride 2, 37 channels
    ((5, 16, 1, 30), (48, 16, 1, 3), (1, 1), (0, 0, 0, 0), (1, 3)),  # dilation 3: 24 positions
    ((4, 24, 6, 6), (40, 24, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # 2-D, 6x6 = 32 positions
    ((3, 16, 9, 7), (33, 16, 3, 3), (2, 2), (1, 0, 1, 2), (1, 1)),  # 2-D strided, odd pads
    ((2, 8, 5, 5), (64, 8, 2, 2), (1, 1), (0, 0, 0, 0), (2, 2)),  # 2-D dilated: 3x3 = 9
    ((20, 12, 1, 9), (32, 12, 1, 6), (1, 1), (0, 0, 0, 0), (1, 1)),  # 4 positions: 1 tile
    ((2, 16, 1, 13), (32, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),  # batch 2: 26 positions
]


def model(w, b, w_input=False, **attrs):
    """Conv(x, W[, B]); W a constant, or with w_input a graph input."""
    inputs = ["x", "W"] + (["B"] if b is not None else [])
    inits = [] if w_input else [numpy_helper.from_array(w, "W")]
    if b is not None:
        inits.append(numpy_helper.from_array(b, "B"))
    ins = [helper.make_tensor_value_info("x", F, None)]
    if w_input:
        ins.append(helper.make_tensor_value_info("W", F, None))
    graph = helper.make_graph(
        [helper.make_node("Conv", inputs, ["y"], **attrs)],
        "g",
        ins,
        [helper.make_tensor_value_info("y", F, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def case(xs, ws, seed, bias=True):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, xs).astype(np.float32)
    w = rng.uniform(-1, 1, ws).astype(np.float32)
    b = rng.uniform(-1, 1, ws[0]).astype(np.float32) if bias else None
    return x, w, b


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("xs, ws, strides, pads, dil", POSITIONS)
def test_positions_convolution(xs, ws, strides, pads, dil, threads):
    x, w, b = case(xs, ws, sum(xs) + sum(ws))
    attrs = {"strides": list(strides), "pads": list(pads), "dilations": list(dil)}
    s = onnx_light.RuntimeSession(model(w, b, **attrs), intra_op_threads=threads)
    (y,) = s.run(None, {"x": x})
    np.testing.assert_allclose(
        y, reference_padded(x, w, b, strides, pads, dil, 1), rtol=1e-5, atol=1e-4
    )


@pytest.mark.parametrize("w_input", [False, True], ids=["constant_w", "w_input"])
def test_without_bias_and_with_w_as_an_input(w_input):
    # W as a graph input is packed on every run (into the scratch), a constant once.
    x, w, b = case((24, 32, 1, 21), (96, 32, 1, 5), 3, bias=False)
    s = onnx_light.RuntimeSession(model(w, None, w_input), intra_op_threads=2)
    feeds = {"x": x, "W": w} if w_input else {"x": x}
    want = reference_padded(x, w, None, (1, 1), (0,) * 4, (1, 1), 1)
    for _ in range(2):
        np.testing.assert_allclose(s.run(None, feeds)[0], want, rtol=1e-5, atol=1e-4)
    if w_input:  # other weights in the next run: no stale packing
        w2 = -w[:, :, :, ::-1].copy()
        want2 = reference_padded(x, w2, None, (1, 1), (0,) * 4, (1, 1), 1)
        np.testing.assert_allclose(s.run(None, {"x": x, "W": w2})[0], want2, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
def test_an_image_is_computed_the_same_in_any_batch(threads):
    # Each image alone, the same way: batch 1, 7 and 50 give the same floats for it, and
    # so do 1 and `threads` threads.
    x, w, b = case((50, 32, 1, 21), (150, 32, 1, 9), 5)
    attrs = {"pads": [0, 1, 0, 1]}
    one = onnx_light.RuntimeSession(model(w, b, **attrs))
    many = onnx_light.RuntimeSession(model(w, b, **attrs), intra_op_threads=threads)
    whole = many.run(None, {"x": x})[0]
    for n in (1, 7):
        np.testing.assert_array_equal(one.run(None, {"x": x[:n]})[0], whole[:n])
    np.testing.assert_array_equal(one.run(None, {"x": x})[0], whole)


@pytest.mark.parametrize("activation", [None, "Relu", "Tanh"])
def test_fused_with_residual_and_activation(activation):
    # FusedConv: act(conv + bias + z), the epilogue over the transposed product.
    x, w, b = case((30, 16, 1, 20), (64, 16, 1, 4), 9)
    z = np.random.default_rng(10).uniform(-1, 1, (30, 64, 1, 17)).astype(np.float32)
    attrs = {} if activation is None else {"activation": activation}
    m = fused_residual_model(w, b, "z", **attrs)
    (y,) = onnx_light.RuntimeSession(m, intra_op_threads=2).run(None, {"x": x, "z": z})
    want = reference_padded(x, w, b, (1, 1), (0,) * 4, (1, 1), 1) + z
    if activation == "Relu":
        want = np.maximum(want, 0)
    elif activation == "Tanh":
        want = np.tanh(want)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


def test_a_session_runs_other_shapes_after_it():
    # The packed weights depend on W only: images of other widths (some too wide for this
    # path, some a single image) run on in the same session.
    x, w, b = case((40, 32, 1, 21), (128, 32, 1, 3), 12)
    s = onnx_light.RuntimeSession(model(w, b), intra_op_threads=2)
    rng = np.random.default_rng(13)
    for shape in [(40, 32, 1, 21), (3, 32, 1, 200), (1, 32, 1, 10), (40, 32, 1, 21)]:
        xi = x if shape == x.shape else rng.uniform(-1, 1, shape).astype(np.float32)
        want = reference_padded(xi, w, b, (1, 1), (0,) * 4, (1, 1), 1)
        np.testing.assert_allclose(s.run(None, {"x": xi})[0], want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("w_input", [False, True], ids=["constant_w", "w_input"])
@pytest.mark.parametrize(
    "c_in, m, bias",
    [(512, 1280, True), (256, 64, False), (40, 33, True), (17, 100, False)],
    ids=["head_512_1280", "se_256_64_no_bias", "33_channels", "100_no_bias"],
)
def test_one_position_is_a_product_with_a_vector(c_in, m, bias, w_input, threads):
    """A 1x1 convolution of 1x1 images (squeeze-excite, a classifier head): W^T packed,
    each image a product with one vector, output channels in panels (a partial last one:
    33, 100) split between threads. Against numpy; every image the same bit for bit in a
    batch of 5 as alone; W as an input is packed on each run (other W, other result)."""
    x, w, b = case((5, c_in, 1, 1), (m, c_in, 1, 1), c_in + m, bias=bias)
    s = onnx_light.RuntimeSession(model(w, b, w_input), intra_op_threads=threads)
    feeds = (lambda xi, wi: {"x": xi, "W": wi}) if w_input else (lambda xi, wi: {"x": xi})
    want = reference_padded(x, w, b, (1, 1), (0,) * 4, (1, 1), 1)
    (y,) = s.run(None, feeds(x, w))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)
    for i in (0, 4):
        np.testing.assert_array_equal(s.run(None, feeds(x[i : i + 1], w))[0], y[i : i + 1])
    if w_input:
        w2 = -w[::-1].copy()
        want2 = reference_padded(x, w2, b, (1, 1), (0,) * 4, (1, 1), 1)
        np.testing.assert_allclose(s.run(None, feeds(x, w2))[0], want2, rtol=1e-5, atol=1e-4)


BY_CHANNELS = [
    # one image (fewer than the threads): the output channels split between the threads
    ((1, 64, 7, 7), (512, 64, 3, 3), (1, 1, 1, 1)),  # ResNet's last stage, padded windows
    ((1, 48, 6, 6), (100, 48, 3, 3), (0, 0, 0, 0)),  # 100 channels: a partial last panel
    ((2, 32, 5, 5), (96, 32, 3, 3), (1, 1, 1, 1)),  # 2 images: split by channels at 3 threads
]


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("xs, ws, pads", BY_CHANNELS)
@pytest.mark.parametrize("bias", [True, False])
def test_fewer_images_than_threads_split_the_channels(xs, ws, pads, bias, threads):
    """Each thread takes all the positions and its panels of output channels (not half the
    positions and all of W): against numpy, and bit for bit the one-thread result (the same
    tiles of rows either way)."""
    x, w, b = case(xs, ws, sum(ws), bias=bias)
    m = model(w, b, pads=list(pads))
    (y,) = onnx_light.RuntimeSession(m, intra_op_threads=threads).run(None, {"x": x})
    want = reference_padded(x, w, b, (1, 1), pads, (1, 1), 1)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)
    (one,) = onnx_light.RuntimeSession(m).run(None, {"x": x})
    np.testing.assert_array_equal(y, one)


@pytest.mark.parametrize("activation", ["Relu", "Tanh"])
def test_channels_split_with_residual_and_activation(activation):
    x, w, b = case((1, 32, 6, 6), (96, 32, 3, 3), 21)
    z = np.random.default_rng(22).uniform(-1, 1, (1, 96, 4, 4)).astype(np.float32)
    m = fused_residual_model(w, b, "z", activation=activation)
    (y,) = onnx_light.RuntimeSession(m, intra_op_threads=2).run(None, {"x": x, "z": z})
    want = reference_padded(x, w, b, (1, 1), (0,) * 4, (1, 1), 1) + z
    want = np.maximum(want, 0) if activation == "Relu" else np.tanh(want)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)
