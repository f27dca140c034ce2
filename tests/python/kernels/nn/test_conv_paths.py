"""Convolution paths by the width of their matrix product (output positions per band):
the narrow dot-product kernel (a few positions: 1-D audio convolutions), the BLAS and the
packed kernel, and a banded convolution whose last band is narrow. Each against a
float64 numpy reference; float32 accumulation over up to ~600 products: rtol 1e-5,
atol 1e-5 (inputs in [-1, 1])."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


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
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("xs, k, strides, pads, dil", DEPTHWISE)
def test_depthwise(xs, k, strides, pads, dil, threads):
    c = xs[1]
    check_padded(xs, (c, 1, *k), strides, pads, dil, c, threads, sum(xs) + sum(k), 1e-5)


def test_depthwise_fused_with_residual_and_activation():
    # Conv + Add(residual) is not fused; Conv + HardSwish is: the epilogue runs in the
    # depthwise kernel. Against numpy's HardSwish of the reference.
    rng = np.random.default_rng(9)
    x = rng.uniform(-3, 3, (1, 6, 12, 37)).astype(np.float32)
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
    # 1x1, unit strides, no pads: in place (the last partial tile from a copy)
    ((2, 40, 13, 11), (24, 40, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 143 positions
    ((1, 300, 9, 9), (70, 300, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # k = 300
    ((1, 64, 20, 20), (48, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 2),  # two groups
    ((1, 32, 33, 35), (40, 32, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1155 positions
    ((1, 8, 150, 200), (80, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # several chunks
]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("xs, ws, strides, pads, dil, group", IMPLICIT)
def test_implicit_convolution(xs, ws, strides, pads, dil, group, threads):
    # float32 sums of up to 2304 products of values in [-1, 1]: atol 1e-4
    check_padded(xs, ws, strides, pads, dil, group, threads, sum(xs) + sum(ws), 1e-4)


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
    node = helper.make_node("FusedConv", ["x", "W", "B", "z"], ["y"], domain="onnx_light", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in ("x", "z")],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onnx_light", 1)]
    )
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    # A second input of other shapes: the session is reusable, the scratch follows them.
    x2 = rng.uniform(-1, 1, (2, 32, 9, 40)).astype(np.float32)
    for xi in (x, x2):
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
