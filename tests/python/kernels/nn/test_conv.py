"""Convolution paths by the width of their matrix product (output positions per band):
the narrow dot-product kernel (a few positions: 1-D audio convolutions), the BLAS and the
packed kernel, and a banded convolution whose last band is narrow. Each against a
float64 numpy reference; float32 accumulation over up to ~600 products: rtol 1e-5,
atol 1e-5 (inputs in [-1, 1])."""

from __future__ import annotations

import numpy as np
import pytest
from _conv_graphs import conv_model as tail_conv_model
from _graphs import F, fused_conv_model, node_model
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import helper, numpy_helper


def conv_then(activation, w, b, **attrs):
    """Conv (with a bias if b is given) followed by a one-input activation node."""
    weights = {"W": w} if b is None else {"W": w, "B": b}
    nodes = [
        helper.make_node("Conv", ["x", *weights], ["c"], **attrs),
        helper.make_node(activation, ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, None)],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(v, n) for n, v in weights.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_model(w, b, **attrs):
    weights = {"W": w} if b is None else {"W": w, "B": b}
    inputs = [("x", F)] + [(n, None) for n in weights]
    return node_model("Conv", inputs, [("y", F)], initializers=weights, **attrs)


def reference(x, w, b, stride, pad, group):
    """N-d convolution (1-D or 2-D) in float64 by explicit windows."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pad, pad)] * nd)
    m, cg = w.shape[:2]
    k = w.shape[2:]
    out = [(x.shape[2 + i] - k[i]) // stride + 1 for i in range(nd)]
    y = np.zeros((x.shape[0], m, *out))
    mg = m // group
    for idx in np.ndindex(*out):
        sl = tuple(slice(idx[i] * stride, idx[i] * stride + k[i]) for i in range(nd))
        for g in range(group):
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            wg = w[g * mg : (g + 1) * mg]
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + idx] = np.tensordot(
                patch, wg, axes=(list(range(1, nd + 2)), list(range(1, nd + 2)))
            )
    if b is not None:
        y += b.reshape((1, m) + (1,) * nd)
    return y


CASES = [
    # (x shape, w shape, stride, pad, group): output positions from 1 to 17
    ((1, 129, 3), (128, 129, 3), 1, 1, 1),  # Silero encoder: 3 positions, k = 387
    ((1, 64, 1), (128, 64, 3), 1, 1, 1),  # 1 position
    ((2, 7, 5), (5, 7, 2), 2, 0, 1),  # 2 positions, k = 14 (under a vector)
    ((1, 1, 576), (258, 1, 256), 128, 0, 1),  # the STFT convolution: 3 positions
    ((1, 6, 9), (6, 3, 3), 1, 1, 2),  # groups, 9 positions
    ((1, 33, 17), (3, 33, 1), 1, 0, 1),  # 17 positions: past the narrow kernel
    ((1, 16, 4, 4), (40, 16, 3, 3), 1, 0, 1),  # 2-D, 4 positions
    ((1, 16, 3, 5), (9, 16, 3, 3), 1, 1, 1),  # 2-D, 15 positions
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("xs, ws, stride, pad, group", CASES)
def test_conv_by_product_width(xs, ws, stride, pad, group, threads):
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x = rng.uniform(-1, 1, xs).astype(np.float32)
    w = rng.uniform(-1, 1, ws).astype(np.float32)
    b = rng.uniform(-1, 1, ws[0]).astype(np.float32)
    nd = len(xs) - 2
    s = onnx_light.RuntimeSession(
        conv_model(w, b, strides=[stride] * nd, pads=[pad] * (2 * nd), group=group),
        intra_op_threads=threads,
    )
    (y,) = s.run(None, {"x": x})
    np.testing.assert_allclose(y, reference(x, w, b, stride, pad, group), rtol=1e-5, atol=1e-5)


def test_many_rows_split_across_threads_with_few_positions():
    # 1024 output channels x 2 positions x k = 1152: the narrow product splits its rows.
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (1, 384, 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (1024, 384, 3)).astype(np.float32)
    want = reference(x, w, None, 1, 0, 1)
    for threads in (1, 2):
        s = onnx_light.RuntimeSession(conv_model(w, None), intra_op_threads=threads)
        (y,) = s.run(None, {"x": x})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


def test_banded_convolution_whose_last_band_is_narrow():
    # 65 output rows of 4: bands of 64 rows (256 positions) and a last band of 4 positions.
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (1, 64, 67, 6)).astype(np.float32)
    w = rng.uniform(-1, 1, (8, 64, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 8).astype(np.float32)
    s = onnx_light.RuntimeSession(conv_model(w, b))
    (y,) = s.run(None, {"x": x})
    assert y.shape == (1, 8, 65, 4)
    np.testing.assert_allclose(y, reference(x, w, b, 1, 0, 1), rtol=1e-5, atol=1e-4)


def reference_padded(x, w, b, strides, pads, dilations, group):
    """2-D convolution with per-side pads, strides and dilations, float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    w = w.astype(np.float64)
    m, cg, kh, kw = w.shape
    oh = (x.shape[2] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (x.shape[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    y = np.zeros((x.shape[0], m, oh, ow))
    mg = m // group
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilations[0], j * dilations[1]
            patch = x[
                :, :, r0 : r0 + strides[0] * oh : strides[0], c0 : c0 + strides[1] * ow : strides[1]
            ]
            for oc in range(m):
                g = oc // mg
                y[:, oc] += np.einsum(
                    "nchw,c->nhw", patch[:, g * cg : (g + 1) * cg], w[oc, :, i, j]
                )
    if b is not None:
        y += b.reshape(1, m, 1, 1)
    return y


def check_padded(xs, ws, strides, pads, dil, group, threads, seed, atol):
    """x, w and a bias uniform in [-1, 1] from `seed`; the convolution against
    reference_padded (rtol 1e-5, `atol`)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, xs).astype(np.float32)
    w = rng.uniform(-1, 1, ws).astype(np.float32)
    b = rng.uniform(-1, 1, ws[0]).astype(np.float32)
    model = conv_model(
        w, b, strides=list(strides), pads=list(pads), dilations=list(dil), group=group
    )
    (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})
    want = reference_padded(x, w, b, strides, pads, dil, group)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=atol)


DEPTHWISE = [
    # (x shape, kernel, strides, pads (top, left, bottom, right), dilations)
    ((1, 8, 12, 80), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),  # PP-OCRv4 rec's 5x5
    ((2, 5, 9, 23), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # odd width: a partial vector
    ((1, 6, 17, 33), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # stride 2
    ((1, 4, 16, 40), (3, 3), (2, 2), (0, 0, 1, 1), (1, 1)),  # asymmetric pads
    ((1, 3, 11, 19), (3, 5), (1, 2), (2, 1, 0, 3), (2, 1)),  # dilation, odd pads
    ((1, 4, 10, 10), (7, 7), (1, 1), (3, 3, 3, 3), (1, 1)),  # 7x7
    ((1, 3, 13, 14), (3, 3), (3, 3), (1, 1, 1, 1), (1, 1)),  # stride 3: row by row
    ((1, 2, 3, 2), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # tiny plane
    # Rows narrower than four vectors run four rows at a time (the last group overlapping
    # the one before it), rows of at most half a vector in half-width vectors, and the
    # padded buffer's borders are zeroed once per run of planes.
    ((2, 16, 7, 7), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),  # MobileNet's last 5x5 stage
    ((1, 24, 14, 14), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # 14 rows: groups at 0, 4, 8, 10
    ((1, 8, 9, 3), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # stride 2, 2-wide rows
    ((3, 5, 6, 40), (3, 3), (1, 1), (0, 1, 0, 1), (1, 1)),  # 4 rows, batch 3, no top pad
    # Stride 2 along the width reads rows split into their even and odd columns: an odd or
    # even first column (left pad 1, 2, 0), rows of many vectors of pairs, odd widths, the
    # last row's tail one by one, columns the window never reaches, dilation.
    ((1, 16, 14, 14), (5, 5), (2, 2), (2, 2, 2, 2), (1, 1)),  # MobileNetV3's 5x5, 14 -> 7
    ((2, 3, 9, 81), (3, 3), (2, 2), (1, 2, 1, 0), (1, 1)),  # 40 pairs, even first column
    ((1, 4, 7, 45), (3, 3), (1, 2), (0, 0, 0, 0), (1, 1)),  # no pads: column 0 first
    ((1, 3, 5, 10), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1)),  # column 9 never read
    ((1, 5, 12, 37), (3, 3), (2, 2), (1, 1, 1, 1), (2, 2)),  # dilation 2
    ((1, 2, 2, 3), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # 2x3 plane: all one by one
    # 3x3 and 5x5 at stride 1 read the unpadded plane on AVX2 and AVX-512: masked columns at
    # both edges of wide rows, no pads, pads wider than the window (whole vectors and rows
    # of zeros), asymmetric pads, a row between half a vector and a vector.
    ((1, 4, 9, 112), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # 7 or 14 vectors a row
    ((1, 3, 9, 11), (5, 5), (1, 1), (0, 0, 0, 0), (1, 1)),  # valid: no pads
    ((1, 3, 5, 6), (3, 3), (1, 1), (2, 3, 2, 1), (1, 1)),  # pads past the window
    ((2, 3, 8, 21), (5, 5), (1, 1), (1, 3, 3, 1), (1, 1)),  # asymmetric 5x5
    ((1, 5, 6, 12), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),  # 12 of 16 lanes, 8 + 4 of 8
    # ... and at stride 2 (two vectors a pair of taps, their even and odd lanes): wide rows,
    # pads past the window, no pads, a left pad without a right one, odd and even widths.
    ((1, 3, 20, 70), (5, 5), (2, 2), (2, 2, 2, 2), (1, 1)),  # 35 outputs a row
    ((2, 4, 11, 23), (3, 3), (2, 2), (2, 2, 2, 2), (1, 1)),  # pads past the window
    ((1, 3, 12, 41), (5, 5), (2, 2), (0, 0, 0, 0), (1, 1)),  # no pads
    ((1, 5, 13, 30), (3, 3), (2, 2), (1, 1, 0, 0), (1, 1)),  # top/left pads only
    # Planes narrower than a vector with "same" columns at stride 1 run flat on AVX-512
    # (16 positions a vector across row ends, columns masked, zero rows above and below):
    # a plane's first channel mid-way through the channels (39 planes in two parts), 15
    # vectors in chunks of 8 + 7, exactly one vector, no top pad (fewer output rows than
    # input rows), asymmetric top and bottom pads.
    ((3, 13, 14, 14), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # 13 vectors: 7 + 6
    ((1, 9, 15, 15), (5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),  # 225 positions: 8 + 7
    ((1, 6, 4, 4), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # 16 positions: one vector
    ((1, 6, 9, 7), (5, 5), (1, 1), (0, 2, 0, 2), (1, 1)),  # 5 of 9 rows out
    ((2, 4, 7, 7), (5, 5), (1, 1), (1, 2, 3, 2), (1, 1)),  # top 1, bottom 3
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("xs, k, strides, pads, dil", DEPTHWISE)
def test_depthwise(xs, k, strides, pads, dil, threads):
    c = xs[1]
    check_padded(xs, (c, 1, *k), strides, pads, dil, c, threads, sum(xs) + sum(k), 1e-5)


@pytest.mark.parametrize("xs", [(1, 6, 12, 37), (1, 6, 7, 7), (1, 6, 5, 20)])
def test_depthwise_fused_with_residual_and_activation(xs):
    # Conv + Add(residual) is not fused; Conv + HardSwish is: the epilogue runs in the
    # depthwise kernel (per finished row; narrow rows four at a time, overlapping). Against
    # numpy's HardSwish of the reference.
    rng = np.random.default_rng(9)
    x = rng.uniform(-3, 3, xs).astype(np.float32)
    w = rng.uniform(-1, 1, (6, 1, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 6).astype(np.float32)
    s = onnx_light.RuntimeSession(conv_then("HardSwish", w, b, group=6, pads=[1, 1, 1, 1]))
    assert s.planned_nodes == 1  # fused
    (y,) = s.run(None, {"x": x})
    c = reference_padded(x, w, b, (1, 1), (1, 1, 1, 1), (1, 1), 6)
    np.testing.assert_allclose(y, c * np.clip(c / 6 + 0.5, 0, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_bands_recut_for_the_threads(threads):
    # 20 output rows of 40 with k = 576: bands of 7 rows make 3 (7 + 7 + 6), which two
    # threads share unevenly; they are re-cut into 4 bands of 5. Same values either way.
    rng = np.random.default_rng(12)
    x = rng.uniform(-1, 1, (1, 64, 20, 40)).astype(np.float32)
    w = rng.uniform(-1, 1, (24, 64, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 24).astype(np.float32)
    s = onnx_light.RuntimeSession(conv_model(w, b, pads=[1, 1, 1, 1]), intra_op_threads=threads)
    (y,) = s.run(None, {"x": x})
    np.testing.assert_allclose(y, reference(x, w, b, 1, 1, 1), rtol=1e-5, atol=1e-4)


DIRECT = [
    # (x shape, w shape, strides, pads, dilations): at most 32 output channels and 160
    # input-channel taps, so these run directly over padded planes (no columns).
    ((1, 3, 33, 47), (16, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # a stem
    ((2, 16, 20, 19), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # batch 2
    ((1, 12, 21, 30), (7, 12, 3, 3), (1, 2), (0, 1, 2, 1), (1, 1)),  # 7 outputs, odd pads
    ((1, 5, 17, 23), (5, 5, 3, 5), (2, 1), (2, 1, 0, 3), (2, 1)),  # dilation, 3x5
    ((1, 3, 40, 40), (30, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1)),  # 7x7
    ((1, 4, 5, 3), (9, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # a tiny plane
    # one pixel wide with a kx1 kernel (a TCN's dilated 1-D layers exported along the
    # height): run as one-row images; dilations up to past the whole input
    ((1, 16, 96, 1), (16, 16, 5, 1), (1, 1), (2, 0, 2, 0), (1, 1)),
    ((1, 16, 96, 1), (16, 16, 5, 1), (1, 1), (64, 0, 64, 0), (32, 1)),
    ((2, 16, 99, 1), (16, 16, 5, 1), (1, 1), (256, 0, 256, 0), (128, 1)),
    ((1, 8, 50, 1), (12, 8, 3, 1), (1, 1), (100, 0, 100, 0), (100, 1)),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("xs, ws, strides, pads, dil", DIRECT)
def test_direct_convolution(xs, ws, strides, pads, dil, threads):
    check_padded(xs, ws, strides, pads, dil, 1, threads, sum(xs) + sum(ws), 1e-5)


def test_direct_convolution_fused_with_activation():
    # Conv + Relu becomes a FusedConv; its epilogue runs in the direct kernel.
    rng = np.random.default_rng(21)
    x = rng.uniform(-1, 1, (1, 8, 14, 18)).astype(np.float32)
    w = rng.uniform(-1, 1, (12, 8, 3, 3)).astype(np.float32)
    s = onnx_light.RuntimeSession(conv_then("Relu", w, None, pads=[1, 1, 1, 1]))
    assert s.planned_nodes == 1
    (y,) = s.run(None, {"x": x})
    want = np.maximum(reference_padded(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), 1), 0)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


IMPLICIT = [
    # (x shape, w shape, strides, pads, dilations, group): dense convolutions with a window.
    # On AVX-512 they run as the implicit product over stride-phase planes
    # (nn/conv2d_implicit_f32.cc); elsewhere through columns. Same reference either way.
    ((1, 64, 40, 40), (64, 64, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # YOLOv8n head
    ((1, 32, 33, 29), (40, 32, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),  # stride 2, odd sizes
    ((2, 24, 21, 30), (36, 24, 3, 3), (1, 2), (0, 1, 2, 1), (1, 1), 1),  # batch, odd pads
    ((1, 20, 25, 31), (48, 20, 3, 5), (2, 1), (2, 1, 0, 3), (2, 1), 1),  # dilation, 3x5
    ((1, 16, 30, 36), (33, 16, 3, 3), (3, 3), (1, 1, 1, 1), (1, 1), 1),  # stride 3
    ((1, 32, 18, 26), (48, 32, 3, 3), (1, 1), (1, 1, 1, 1), (2, 2), 1),  # dilation 2
    ((1, 48, 19, 23), (60, 24, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),  # two groups
    ((1, 256, 10, 10), (70, 256, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # k = 2304
    ((1, 12, 130, 131), (24, 12, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # several bands
    ((1, 3, 64, 70), (16, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),  # a stem
    ((1, 8, 1, 300), (40, 8, 1, 5), (1, 1), (0, 2, 0, 2), (1, 1), 1),  # one row: 1-D
    ((1, 16, 260, 1), (48, 16, 5, 1), (1, 1), (2, 0, 2, 0), (1, 1), 1),  # kx1, as Magika
    ((2, 16, 131, 1), (24, 16, 3, 1), (2, 1), (1, 0, 1, 0), (1, 1), 1),  # kx1, stride 2
    # One long row split by columns between threads, its input prepared once in channel
    # shares: stride 2 (the padded row de-interleaved), a dilated one.
    ((1, 16, 1, 600), (32, 16, 1, 3), (1, 2), (0, 1, 0, 1), (1, 1), 1),
    ((2, 24, 1, 700), (40, 24, 1, 3), (1, 1), (0, 0, 0, 0), (1, 64), 1),
    # 1x1, unit strides, no pads: in place (the last partial tile from a copy)
    ((2, 40, 13, 11), (24, 40, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 143 positions
    ((1, 300, 9, 9), (70, 300, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # k = 300
    ((1, 64, 20, 20), (48, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 2),  # two groups
    ((1, 32, 33, 35), (40, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1155 positions
    ((1, 8, 150, 200), (80, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # several chunks
    ((1, 384, 13, 13), (96, 384, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # k = 384 in place
    ((1, 288, 32, 32), (40, 288, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 4 KiB planes: packed
    # Few column tiles (14x14, 7x7): on more threads the output channels split instead, in
    # 8-row parts (72 = 32 + 40 on two, 24 + 24 + 24 on three), the tail copied once.
    ((1, 64, 14, 14), (72, 64, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 64, 7, 7), (96, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 2),  # and two groups
    # At most 4 columns past a multiple of the vector (49, 196, 81, 1155 and, in 8 lanes,
    # 169) by dot products from the bias up; 2x2 planes: all of them.
    ((1, 24, 2, 2), (20, 24, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((1, 19, 3, 7), (13, 19, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 21: 16 + 5, tiles
    # One or two output channels (a segmentation or saliency head): one or two rows of the
    # product, summed in interleaved sets, or streamed where the window's rows of the input
    # are over 512 KiB (odd widths: column tails).
    ((1, 64, 30, 257), (1, 64, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 96, 21, 203), (2, 96, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 128, 33, 65), (1, 128, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((1, 32, 17, 19), (2, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 99, 20, 301), (1, 99, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # 99: k % 4 rows
]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("xs, ws, strides, pads, dil, group", IMPLICIT)
def test_implicit_convolution(xs, ws, strides, pads, dil, group, threads):
    # float32 sums of up to 2304 products of values in [-1, 1]: atol 1e-4
    check_padded(xs, ws, strides, pads, dil, group, threads, sum(xs) + sum(ws), 1e-4)


def fused_residual_model(w, b, z, **attrs):
    """onnx_light:FusedConv(x, W, B, z) -> y with W and B constant; z "" for none (the
    graph still declares a z input)."""
    node = helper.make_node("FusedConv", ["x", "W", "B", z], ["y"], domain="onnx_light", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("x", "z")],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onnx_light", 1)]
    )


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("activation", [None, "Relu", "Sigmoid"])
@pytest.mark.parametrize("kernel", [3, 1])
def test_implicit_convolution_with_residual_and_activation(activation, threads, kernel):
    # FusedConv with a residual Z: act(conv + bias + z), the epilogue after the product.
    rng = np.random.default_rng(31)
    x = rng.uniform(-1, 1, (1, 32, 24, 28)).astype(np.float32)
    w = rng.uniform(-1, 1, (40, 32, kernel, kernel)).astype(np.float32)
    b = rng.uniform(-1, 1, 40).astype(np.float32)
    pad, stride = (kernel // 2, 2) if kernel == 3 else (0, 1)
    oh, ow = (24 + 2 * pad - kernel) // stride + 1, (28 + 2 * pad - kernel) // stride + 1
    z = rng.uniform(-1, 1, (1, 40, oh, ow)).astype(np.float32)
    attrs = {"pads": [pad] * 4, "strides": [stride] * 2}
    if activation is not None:
        attrs["activation"] = activation
    model = fused_residual_model(w, b, "z", **attrs)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    # Inputs of other shapes: the session is reusable, the scratch follows them (7x7: the
    # 1x1 product's last column by dot products, the epilogue over it too).
    x2 = rng.uniform(-1, 1, (2, 32, 9, 40)).astype(np.float32)
    x3 = rng.uniform(-1, 1, (2, 32, 7, 7)).astype(np.float32)
    for xi in (x, x2, x3):
        oh = (xi.shape[2] + 2 * pad - kernel) // stride + 1
        ow = (xi.shape[3] + 2 * pad - kernel) // stride + 1
        zi = z if xi is x else rng.uniform(-1, 1, (2, 40, oh, ow)).astype(np.float32)
        (y,) = s.run(None, {"x": xi, "z": zi})
        want = reference_padded(xi, w, b, (stride,) * 2, (pad,) * 4, (1, 1), 1) + zi
        if activation == "Relu":
            want = np.maximum(want, 0)
        elif activation == "Sigmoid":
            want = 1 / (1 + np.exp(-want))
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("group", [1, 2])
def test_one_pixel_planes_finish_in_one_pass(group, threads):
    """1x1 planes (a squeeze-excite's convolutions, a classifier's head): the epilogue runs
    once over all of a group's channels, which lie one after another: act(conv + bias + z)
    against numpy, batch 2, with and without a residual."""
    rng = np.random.default_rng(41)
    x = rng.uniform(-1, 1, (2, 64, 1, 1)).astype(np.float32)
    w = rng.uniform(-1, 1, (96, 64 // group, 1, 1)).astype(np.float32)
    b = rng.uniform(-1, 1, 96).astype(np.float32)
    z = rng.uniform(-1, 1, (2, 96, 1, 1)).astype(np.float32)
    for with_z in (False, True):
        model = fused_residual_model(
            w,
            b,
            "z" if with_z else "",
            activation="HardSigmoid",
            activation_params=[0.2, 0.5],
            group=group,
        )
        s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
        (y,) = s.run(None, {"x": x, "z": z})
        want = reference_padded(x, w, b, (1, 1), (0,) * 4, (1, 1), group)
        if with_z:
            want = want + z
        np.testing.assert_allclose(y, np.clip(0.2 * want + 0.5, 0, 1), rtol=1e-5, atol=1e-5)


def test_grouped_strided_dilated_conv_against_numpy():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    s = session(
        "Conv",
        [("x", F), ("w", F), ("b", F)],
        group=2,
        pads=[1, 0, 1, 1],
        strides=[2, 1],
        dilations=[1, 2],
    )
    (y,) = s.run(None, {"x": x, "w": w, "b": b})
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (0, 1)))
    ref = np.zeros((2, 6, 4, 5))
    for oc in range(6):
        g = oc // 3
        for i in range(4):
            for j in range(5):
                patch = xp[:, g * 2 : g * 2 + 2, i * 2 : i * 2 + 3, j : j + 3 : 2]
                ref[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3)) + b[oc]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)  # float32 accumulation


BAD_INPUTS = [
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(1, 3, 5, 5), "w": f32(2, 2, 3, 3)},
        "X has 3 channels",
    ),
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(3, 5), "w": f32(2, 3, 3)},
        "input must be \\[N, C, D1, ...\\]",
    ),
    (
        "Conv",
        [("x", F), ("w", F)],
        {},
        {"x": f32(1, 1, 2, 2), "w": f32(1, 1, 3, 3)},
        "window is larger than the padded input",
    ),
    (
        "Conv",
        [("x", F), ("w", F), ("b", F)],
        {},
        {"x": f32(1, 1, 3, 3), "w": f32(2, 1, 3, 3), "b": f32(3)},
        "B must be \\[2\\]",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


RNG = np.random.default_rng(11)


def fused_model(activation=None, params=None, with_z=False):
    attrs = {}
    if activation is not None:
        attrs["activation"] = activation
    if params is not None:
        attrs["activation_params"] = params
    return fused_conv_model(with_z=with_z, **attrs)


def test_fused_conv_from_a_file_with_residual():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    z = RNG.standard_normal((1, 3, 5, 5)).astype(np.float32)
    plain = onnx_light.RuntimeSession(fused_model()).run(None, {"x": x})[0]
    got = onnx_light.RuntimeSession(fused_model("Relu", with_z=True)).run(None, {"x": x, "z": z})[0]
    np.testing.assert_allclose(got, np.maximum(plain + z, 0), rtol=1e-6, atol=1e-6)
    s = onnx_light.RuntimeSession(fused_model("Clip", [-1.0, 1.0], with_z=True))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        s.run(None, {"x": x, "z": z[:, :2]})
    np.testing.assert_allclose(
        s.run(None, {"x": x, "z": z})[0], np.clip(plain + z, -1, 1), rtol=1e-6, atol=1e-6
    )
    # A Z of another shape broadcasts as the Add it came from would: per channel, or to a
    # larger output (two copies of the batch).
    for zz in (z[:, :, :1, :1], np.concatenate([z, -z])):
        np.testing.assert_allclose(
            s.run(None, {"x": x, "z": zz})[0], np.clip(plain + zz, -1, 1), rtol=1e-6, atol=1e-6
        )


@pytest.mark.parametrize(
    "activation,params,message",
    [
        ("Swish", None, "unknown activation 'Swish'"),
        ("Clip", None, "Clip needs activation_params"),
        ("Relu", [1.0], "Relu takes 0 activation_params, got 1"),
    ],
)
def test_fused_conv_bad_attributes(activation, params, message):
    x = np.zeros((1, 2, 5, 5), np.float32)
    with pytest.raises(ValueError, match=message):  # at the first run: kernels are lazy
        onnx_light.RuntimeSession(fused_model(activation, params)).run(None, {"x": x})


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize(
    "w_shape,x_shape",
    [
        ((32, 64, 3, 3), (2, 64, 40, 96)),
        ((32, 64, 1, 1), (1, 64, 32, 32)),
        ((64, 64, 3, 3), (1, 64, 12, 12)),
    ],
    ids=["bands", "one_band_split_columns", "one_band_split_rows"],
)
def test_convolution_is_the_same_on_more_threads(threads, w_shape, x_shape):
    """A convolution whose columns do not fit in L2 runs in bands of output rows, and with
    more threads each thread takes whole bands (same blocks, same sums: bit-identical); a
    single band splits its product between the threads instead, by columns or, when
    narrow, by rows. The packed kernel (AVX-512) computes every element the same way
    however it is split (bit-identical); OpenBLAS (AVX2 and older) picks its edge kernels by
    block size, so there the split results agree to float32 summation-order rounding
    (rtol 1e-5, atol 5e-5: sums of 576 products of magnitude ~0.3)."""
    tail = [helper.make_node("Relu", ["c"], ["y"])]
    model = tail_conv_model(tail, w_shape=w_shape, x_shape=x_shape, conv_attrs={})
    x = RNG.standard_normal(x_shape).astype(np.float32)
    one = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    many = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    packed = onnx_light._core.simd_target().startswith("AVX3")  # the packed kernel runs
    if packed or w_shape[2] == 3 and x_shape[0] == 2:  # the bands case splits no product
        np.testing.assert_array_equal(many, one)
    else:
        np.testing.assert_allclose(many, one, rtol=1e-5, atol=5e-5)
    none = onnx_light.RuntimeSession(model, graph_optimization_level="none").run(None, {"x": x})[0]
    np.testing.assert_allclose(one, none, rtol=1e-5, atol=1e-5)
