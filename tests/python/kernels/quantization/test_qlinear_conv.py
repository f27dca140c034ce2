"""QLinearConv's 2-D path (src/onnx_light/kernels/quantization/qlinear_conv.cc: windows
gathered per block of pixels, one exact integer GEMM per group, depthwise directly) against
an exact reference: the convolution in int64 (numpy), then ORT's requantization in float32
(acc * scale as float32, rounded half to even, the zero point added, saturated). Weights
as initializers (packed once when the kernel is made) and as feeds; uint8 and int8
activations and weights; groups, depthwise, strides, dilations, asymmetric pads, odd and
large window sizes, per-channel scales and weight zero points, bias that wraps int32."""

from __future__ import annotations

import numpy as np
import pytest
from _quantized import conv_int64
from onnx import TensorProto, helper, numpy_helper

import onnx_light

F32 = np.float32


def requantize_f32(acc, scale, zp, dtype):
    info = np.iinfo(dtype)
    wrapped = acc.astype(np.int64).astype(np.int32)  # the int32 sum wraps
    v = wrapped.astype(F32) * scale.astype(F32)
    return np.clip(np.rint(v) + zp, info.min, info.max).astype(dtype)


def elem(t):
    return TensorProto.UINT8 if t == np.uint8 else TensorProto.INT8


def codes(rng, t, *shape):
    info = np.iinfo(t)
    return rng.integers(info.min, info.max + 1, shape).astype(t)


CASES = {
    # name: (x type, w type, C, M, k, group, strides, pads, dilations, per-channel, H, W)
    "3x3": (np.uint8, np.int8, 8, 16, 3, 1, (1, 1), (1, 1, 1, 1), (1, 1), False, 9, 11),
    "stem_odd_k": (np.uint8, np.int8, 3, 32, 3, 1, (2, 2), (1, 1, 1, 1), (1, 1), True, 21, 17),
    "1x1_many_pixels": (np.int8, np.int8, 24, 40, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), True, 15, 15),
    "int8_x_strided": (np.int8, np.int8, 16, 24, 3, 1, (2, 1), (0, 1, 2, 1), (1, 1), False, 12, 9),
    "uint8_weights": (np.uint8, np.uint8, 6, 10, 3, 1, (1, 1), (1, 1, 1, 1), (1, 1), True, 8, 8),
    "dilated": (np.uint8, np.int8, 5, 7, 3, 1, (1, 1), (2, 2, 2, 2), (2, 2), False, 10, 10),
    "groups": (np.uint8, np.int8, 12, 18, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), True, 7, 9),
    "depthwise": (np.uint8, np.int8, 16, 16, 3, 16, (1, 1), (1, 1, 1, 1), (1, 1), True, 10, 10),
    "depthwise_int8_s2": (np.int8, np.int8, 8, 8, 5, 8, (2, 2), (2, 2, 2, 2), (1, 1), False, 11, 9),
    "large_window": (np.uint8, np.int8, 64, 8, 7, 1, (1, 1), (3, 3, 3, 3), (1, 1), False, 9, 9),
    # 64k input values: the channels-last copy split across the pool at two threads
    "large_image": (np.uint8, np.int8, 16, 8, 3, 1, (1, 1), (1, 1, 1, 1), (1, 1), True, 64, 64),
    "large_image_int8": (
        np.int8,
        np.int8,
        16,
        6,
        3,
        1,
        (2, 2),
        (1, 1, 1, 1),
        (1, 1),
        False,
        65,
        63,
    ),
    # Winograd F(2x2, 3x3) (constant weights, 3x3, stride 1, >= 8 channels in and out):
    # odd output sizes (partial edge tiles), asymmetric pads, an odd channel count (a zero
    # channel), int8 codes, uint8 weights with per-channel zero points
    "winograd_odd_out": (
        np.uint8,
        np.int8,
        16,
        24,
        3,
        1,
        (1, 1),
        (1, 2, 1, 0),
        (1, 1),
        True,
        11,
        13,
    ),
    "winograd_odd_channels": (
        np.int8,
        np.uint8,
        9,
        8,
        3,
        1,
        (1, 1),
        (0, 0, 0, 0),
        (1, 1),
        True,
        7,
        10,
    ),
    "winograd_wide": (np.uint8, np.int8, 64, 40, 3, 1, (1, 1), (1, 1, 1, 1), (1, 1), False, 9, 8),
}


def build(case, const_w, seed=0):
    xt, wt, c, m, k, group, strides, pads, dil, per_channel, h, w_ = CASES[case]
    rng = np.random.default_rng(seed)
    x = codes(rng, xt, 2, c, h, w_)
    w = codes(rng, wt, m, c // group, k, k)
    xz = np.array(rng.integers(-20, 20) + (128 if xt == np.uint8 else 0), xt)
    if per_channel:
        ws = (rng.random(m) * 0.004 + 0.001).astype(F32)
        wz = rng.integers(-3, 4, m) + (128 if wt == np.uint8 else 0)
        wz = wz.astype(wt)
    else:
        ws, wz = np.array(0.002, F32), np.array(128 if wt == np.uint8 else 2, wt)
    vals = {
        "x": x,
        "xs": np.array(0.05, F32),
        "xz": xz,
        "w": w,
        "ws": ws,
        "wz": wz,
        "ys": np.array(0.4, F32),
        "yz": np.array(7 + (120 if xt == np.uint8 else 0), xt),
        # near the int32 limits in one channel: the sum wraps as the accumulation does
        "b": np.concatenate([[2**31 - 100], rng.integers(-3000, 3000, m - 1)]).astype(np.int32),
    }
    names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"]
    feeds = {"x": x} if const_w else {"x": x, "w": w}
    inits = [numpy_helper.from_array(vals[n], n) for n in names if n not in feeds]
    types = {n: elem(vals[n].dtype.type) for n in feeds}
    node = helper.make_node(
        "QLinearConv",
        names,
        ["y"],
        kernel_shape=[k, k],
        strides=list(strides),
        pads=list(pads),
        dilations=list(dil),
        group=group,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, types[n], None) for n in feeds],
        [helper.make_tensor_value_info("y", elem(xt), None)],
        inits,
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    acc = conv_int64(
        x.astype(np.int64) - int(xz),
        w.astype(np.int64) - wz.astype(np.int64).reshape(-1, 1, 1, 1),
        group,
        pads,
        strides,
        dil,
    )
    acc = acc + vals["b"].astype(np.int64)[None, :, None, None]
    scale = (F32(0.05) * ws.astype(F32) / F32(0.4)).astype(F32)
    scale = np.broadcast_to(scale.reshape(-1, 1, 1) if per_channel else scale, acc.shape[1:])
    want = requantize_f32(acc, scale, int(vals["yz"]), xt)
    return data, feeds, want


@pytest.mark.parametrize("const_w", [True, False], ids=["packed", "fed"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_qlinear_conv_2d_is_exact(case, const_w):
    data, feeds, want = build(case, const_w)
    for threads in (1, 2):
        got = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, feeds)[0]
        np.testing.assert_array_equal(got, want)
    info = np.iinfo(want.dtype)
    # Not vacuous: most codes are inside the range, not saturated.
    assert np.count_nonzero((want > info.min) & (want < info.max)) > want.size // 2


def test_qlinear_conv_2d_refuses_a_mismatched_weight():
    data, feeds, _ = build("3x3", const_w=False)
    feeds["w"] = feeds["w"][:, :5]  # 5 input channels, x has 8
    s = onnx_light.RuntimeSession(data)
    with pytest.raises(ValueError, match="does not match X"):
        s.run(None, feeds)
    data, feeds, want = build("3x3", const_w=False)
    np.testing.assert_array_equal(s.run(None, feeds)[0], want)  # the session goes on


@pytest.mark.parametrize("channels", [800, 1900])
def test_qlinear_conv_winograd_bound_is_exact_at_the_extremes(channels):
    """Every code at its extreme (x 0 or 255, w 0 or 255 with zero point 255: products of
    -255 x 255): at 800 channels Winograd's intermediate sums wrap int32 while 4 x the result
    still fits (the transform path, exact modulo 2^32); at 1900 it would not, and the
    direct path runs. Both equal the int64 reference."""
    rng = np.random.default_rng(channels)
    m, h, w_ = 8, 4, 5
    x = (rng.integers(0, 2, (1, channels, h, w_)) * 255).astype(np.uint8)
    w = (rng.integers(0, 2, (m, channels, 3, 3)) * 255).astype(np.uint8)
    x[:, :, :, :] = 255  # all at the top: the largest sums
    w[:4] = 0  # four output channels at -255 everywhere
    inits = [
        numpy_helper.from_array(np.array(1.0, F32), "xs"),
        numpy_helper.from_array(np.array(0, np.uint8), "xz"),
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(np.array(1.0, F32), "ws"),
        numpy_helper.from_array(np.array(255, np.uint8), "wz"),
        numpy_helper.from_array(np.array(2.0e6, F32), "ys"),
        numpy_helper.from_array(np.array(128, np.uint8), "yz"),
    ]
    node = helper.make_node(
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
        ["y"],
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, None)],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
        inits,
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    acc = conv_int64(x.astype(np.int64), w.astype(np.int64) - 255, 1, (1, 1, 1, 1), (1, 1), (1, 1))
    want = requantize_f32(
        acc, np.full(acc.shape[1:], F32(1.0) * F32(1.0) / F32(2.0e6)), 128, np.uint8
    )
    assert np.abs(acc).max() > 2**28  # 4 x the sums pass 2^30: the bound is really tested
    for threads in (1, 2):
        got = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, {"x": x})[0]
        np.testing.assert_array_equal(got, want)
    assert len(np.unique(want)) > 3
