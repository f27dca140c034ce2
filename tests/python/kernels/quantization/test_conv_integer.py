"""ConvInteger (src/onnx_light/kernels/quantization/conv_integer.cc), QLinearConv (qlinear_conv.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I8, I32, U8, F
from _quantized import conv_int64, light, model, requantize, run_in_child

import onnx_light
from onnx_light.onnx import TensorProto, helper, numpy_helper


def test_conv_integer_with_groups_and_pads():
    rng = np.random.default_rng(17)
    x = rng.integers(0, 256, (1, 4, 6, 5), dtype=np.uint8)
    w = rng.integers(0, 256, (6, 2, 3, 3), dtype=np.uint8)
    feeds = {"x": x, "w": w, "xz": np.array(128, np.uint8), "wz": np.array(3, np.uint8)}
    data = model(
        "ConvInteger",
        [("x", U8), ("w", U8), ("xz", U8), ("wz", U8)],
        I32,
        opset=10,
        group=2,
        pads=[1, 0, 1, 2],
        strides=[1, 2],
    )
    want = conv_int64(x.astype(np.int64) - 128, w.astype(np.int64) - 3, 2, (1, 0, 1, 2), (1, 2))
    np.testing.assert_array_equal(light(data, feeds), want)


@pytest.mark.parametrize("xt, wt", [(np.int8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
def test_conv_integer_per_channel_weight_zero_points(xt, wt):
    # Each output channel's weights centred on their own zero point; both 8-bit types.
    rng = np.random.default_rng(23)
    info = {np.int8: (I8, -128, 128), np.uint8: (U8, 0, 256)}
    x = rng.integers(info[xt][1], info[xt][2], (2, 3, 5, 6), dtype=xt)
    w = rng.integers(info[wt][1], info[wt][2], (4, 3, 2, 3), dtype=wt)
    xz = np.array(info[xt][1] + 77, xt)
    wz = rng.integers(info[wt][1], info[wt][2], 4, dtype=wt)
    feeds = {"x": x, "w": w, "xz": xz, "wz": wz}
    data = model(
        "ConvInteger",
        [("x", info[xt][0]), ("w", info[wt][0]), ("xz", info[xt][0]), ("wz", info[wt][0])],
        I32,
        opset=10,
        pads=[1, 1, 0, 1],
    )
    wc = w.astype(np.int64) - wz.astype(np.int64)[:, None, None, None]
    want = conv_int64(x.astype(np.int64) - int(xz), wc, 1, (1, 1, 0, 1), (1, 1))
    np.testing.assert_array_equal(light(data, feeds), want)


@pytest.mark.parametrize(
    "pads, strides, dilations",
    [
        ((2, 0, 1, 3), (2, 3), (2, 1)),
        ((0, 4, 0, 4), (1, 1), (1, 3)),
        ((3, 3, 3, 3), (3, 2), (1, 1)),
    ],
)
def test_conv_integer_strides_dilations_and_wide_pads(pads, strides, dilations):
    # The 2-D gather's edges: taps in the padding on either side, a stride that skips over
    # the right edge, dilated taps, pads wider than a tap reaches.
    rng = np.random.default_rng(29)
    x = rng.integers(0, 256, (1, 2, 7, 9), dtype=np.uint8)
    w = rng.integers(-128, 128, (3, 2, 3, 2), dtype=np.int8)
    feeds = {"x": x, "w": w, "xz": np.array(5, np.uint8), "wz": np.array(-7, np.int8)}
    data = model(
        "ConvInteger",
        [("x", U8), ("w", I8), ("xz", U8), ("wz", I8)],
        I32,
        opset=10,
        pads=list(pads),
        strides=list(strides),
        dilations=list(dilations),
    )
    want = conv_int64(x.astype(np.int64) - 5, w.astype(np.int64) + 7, 1, pads, strides, dilations)
    np.testing.assert_array_equal(light(data, feeds), want)


def test_conv_integer_output_channels_split_between_threads():
    # 37 output channels x 64x64 pixels x 72 taps: the gather (by channel planes) and the
    # product (shares of at least 4 output channels, the last one short) are split between 2
    # threads, exactly as one thread computes them.
    rng = np.random.default_rng(31)
    x = rng.integers(0, 256, (1, 8, 64, 64), dtype=np.uint8)
    w = rng.integers(-128, 128, (37, 8, 3, 3), dtype=np.int8)
    feeds = {"x": x, "w": w, "xz": np.array(128, np.uint8), "wz": np.array(0, np.int8)}
    data = model(
        "ConvInteger",
        [("x", U8), ("w", I8), ("xz", U8), ("wz", I8)],
        I32,
        opset=10,
        pads=[1, 1, 1, 1],
    )
    want = conv_int64(x.astype(np.int64) - 128, w.astype(np.int64), 1, (1, 1, 1, 1))
    got = onnx_light.RuntimeSession(data, intra_op_threads=2).run(None, feeds)[0]
    np.testing.assert_array_equal(got, want)


def constant_weights_model(x, w, xz, wz, **attrs):
    """ConvInteger with W and the zero points as initializers (the kernel prepares W once:
    the pointwise product for 1x1 layers, the packed engine, Winograd for 3x3)."""
    types = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(xz, "xz")]
    names = ["x", "w", "xz"]
    if wz is not None:
        inits.append(numpy_helper.from_array(wz, "wz"))
        names.append("wz")
    graph = helper.make_graph(
        [helper.make_node("ConvInteger", names, ["y"], **attrs)],
        "g",
        [helper.make_tensor_value_info("x", types[x.dtype], list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)]).SerializeToString()


CONSTANT_CASES = [
    # (x shape, w shape, attrs): 1x1 unit-stride layers take the pointwise product (63
    # pixels: not a whole column block; 64 x 64 at 32x32 splits between threads), the others
    # the prepared engine (3x3 stride 1: Winograd without VNNI), depthwise, grouped, strided.
    ((2, 24, 7, 9), (24, 24, 1, 1), {}),
    ((1, 64, 32, 32), (64, 64, 1, 1), {}),
    ((1, 5, 6, 6), (3, 5, 1, 1), {"strides": [2, 2]}),  # 1x1 strided: the engine
    ((1, 8, 10, 11), (16, 8, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 8, 9, 12), (12, 8, 3, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((1, 6, 8, 8), (6, 1, 3, 3), {"pads": [1, 1, 1, 1], "group": 6}),
    ((1, 8, 8, 7), (6, 4, 3, 3), {"pads": [0, 1, 1, 0], "group": 2}),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("zero", ["scalar", "per_channel", "none"])
@pytest.mark.parametrize("xt, wt", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
@pytest.mark.parametrize("xs, ws, attrs", CONSTANT_CASES)
def test_conv_integer_with_constant_weights(xs, ws, attrs, xt, wt, zero, threads):
    # Exact against the int64 reference, whichever path the prepared weights take (with the
    # VNNI kernel, uint8 weights are shifted to int8 and their zero points with them).
    rng = np.random.default_rng(sum(xs) + sum(ws))
    lo = {np.int8: -128, np.uint8: 0}
    x = rng.integers(lo[xt], lo[xt] + 256, xs, dtype=xt)
    w = rng.integers(lo[wt], lo[wt] + 256, ws, dtype=wt)
    xz = np.array(lo[xt] + 100, xt)
    wz = {
        "scalar": np.array(lo[wt] + 130, wt),
        "per_channel": rng.integers(lo[wt], lo[wt] + 256, ws[0], dtype=wt),
        "none": None,
    }[zero]
    data = constant_weights_model(x, w, xz, wz, **attrs)
    got = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, {"x": x})[0]
    wc = w.astype(np.int64)
    if wz is not None:
        wc = wc - wz.astype(np.int64).reshape(-1, 1, 1, 1)
    pads = tuple(attrs.get("pads", (0, 0, 0, 0)))
    want = conv_int64(
        x.astype(np.int64) - int(xz), wc, attrs.get("group", 1), pads, attrs.get("strides", (1, 1))
    )
    np.testing.assert_array_equal(got, want)


def test_conv_integer_with_constant_weights_on_avx2():
    """The same cases with the kernels of a CPU without VNNI (the int16 products, Winograd):
    this file's test run again in a process capped at AVX2."""
    run_in_child(
        __file__,
        "test_conv_integer_with_constant_weights and not avx2",
        ONNX_LIGHT_SIMD_TARGET="AVX2",
    )


def test_qlinear_conv_per_channel_scale_and_bias():
    rng = np.random.default_rng(19)
    x = rng.integers(0, 256, (1, 3, 7, 7), dtype=np.uint8)
    w = rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8)
    feeds = {
        "x": x,
        "xs": np.array(0.05, np.float32),
        "xz": np.array(120, np.uint8),
        "w": w,
        "ws": np.array([0.01, 0.02, 0.005, 0.03], np.float32),
        "wz": np.zeros(4, np.int8),
        "ys": np.array(0.7, np.float32),
        "yz": np.array(100, np.uint8),
        "b": rng.integers(-500, 500, 4).astype(np.int32),
    }
    inputs = [
        ("x", U8),
        ("xs", F),
        ("xz", U8),
        ("w", I8),
        ("ws", F),
        ("wz", I8),
        ("ys", F),
        ("yz", U8),
        ("b", I32),
    ]
    acc = (
        conv_int64(x.astype(np.int64) - 120, w, pads=(1, 1, 1, 1)) + feeds["b"][None, :, None, None]
    )
    scale = (feeds["xs"] * feeds["ws"] / feeds["ys"])[None, :, None, None]  # float32
    # QLinearConv scales in float32, as ORT does (the ONNX reference's float64 product
    # could round a tie one code apart; none here, checked both ways)
    want = requantize(acc, scale, feeds["yz"], np.uint8)
    v32 = acc.astype(np.float32) * scale.astype(np.float32)
    np.testing.assert_array_equal(
        want, np.clip(np.rint(v32) + np.float32(feeds["yz"]), 0, 255).astype(np.uint8)
    )
    got = light(model("QLinearConv", inputs, U8, opset=10, pads=[1, 1, 1, 1]), feeds)
    np.testing.assert_array_equal(got, want)
    # Not every value saturates: the comparison is not vacuous.
    assert 20 < np.count_nonzero((want > 0) & (want < 255))


def test_conv_integer_errors():
    with pytest.raises(ValueError, match="x_zero_point must be a scalar"):
        onnx_light.RuntimeSession(
            model("ConvInteger", [("x", U8), ("w", U8), ("xz", U8)], I32, opset=10)
        ).run(
            None,
            {
                "x": np.ones((1, 1, 3, 3), np.uint8),
                "w": np.ones((1, 1, 2, 2), np.uint8),
                "xz": np.ones(2, np.uint8),
            },
        )
