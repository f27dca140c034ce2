"""DequantizeLinear, DynamicQuantizeLinear, QuantizeLinear (src/onnx_light/kernels/quantization/quantize.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest
from _graphs import F
from _narrow import INTS, same_codes
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import TensorProto, helper


def quant_session(op, x_type, s_type, zp_type, opset=25, **attrs):
    node = helper.make_node(op, ["x", "s", "z"], ["y"], **attrs)
    out = zp_type if op == "QuantizeLinear" else s_type
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", x_type, None),
            helper.make_tensor_value_info("s", s_type, None),
            helper.make_tensor_value_info("z", zp_type, None),
        ],
        [helper.make_tensor_value_info("y", out, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )


def dynamic_session(threads=None):
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, None)],
        [
            helper.make_tensor_value_info("y", TensorProto.UINT8, None),
            helper.make_tensor_value_info("s", F, None),
            helper.make_tensor_value_info("z", TensorProto.UINT8, None),
        ],
    )
    options = {} if threads is None else {"intra_op_threads": threads}
    return onnx_light.RuntimeSession(helper.make_model(graph), **options)


def test_quantize_rounds_half_to_even_and_saturates():
    x = np.array([0.5, 1.5, 2.5, -0.5, 300.0, -300.0], np.float32)
    s = session(
        "QuantizeLinear", [("x", F), ("s", F), ("z", TensorProto.INT8)], out_type=TensorProto.INT8
    )
    (y,) = s.run(None, {"x": x, "s": np.array(1.0, np.float32), "z": np.array(0, np.int8)})
    np.testing.assert_array_equal(y, np.array([0, 2, 2, 0, 127, -128], np.int8))


@pytest.mark.parametrize("onnx_type", list(INTS))
def test_quantize_to_packed_ints_rounds_half_even_and_saturates(onnx_type):
    dtype = INTS[onnx_type]
    info = md.iinfo(dtype)
    x = np.linspace(-12, 12, 97).astype(np.float32)
    scale = np.float32(0.5)
    zp = np.array(1 if info.min < 0 else 2, dtype)
    got = quant_session("QuantizeLinear", F, F, onnx_type).run(
        None, {"x": x, "s": np.array(scale), "z": zp}
    )[0]
    want = np.clip(np.rint(x / scale) + int(zp), int(info.min), int(info.max))
    np.testing.assert_array_equal(got.astype(np.int32), want.astype(np.int32))
    back = quant_session("DequantizeLinear", onnx_type, F, onnx_type).run(
        None, {"x": got, "s": np.array(scale), "z": zp}
    )[0]
    np.testing.assert_array_equal(back, (want - int(zp)).astype(np.float32) * scale)


@pytest.mark.parametrize("saturate", [1, 0])
def test_quantize_to_float8_converts_the_quotient(saturate):
    x = np.array([0.3, -7.1, 1000.0, -1e6, np.inf], np.float32)
    got = quant_session("QuantizeLinear", F, F, TensorProto.FLOAT8E4M3FN, saturate=saturate).run(
        None, {"x": x, "s": np.array(2, np.float32), "z": np.zeros((), md.float8_e4m3fn)}
    )[0]
    q = x / np.float32(2)
    want = (
        np.clip(q, -448, 448).astype(md.float8_e4m3fn) if saturate else q.astype(md.float8_e4m3fn)
    )
    assert same_codes(got, want).all(), (got, want)


@pytest.mark.parametrize(
    "x",
    [
        np.array([0, 2, -3, -2.5, 1.34, 0.5], np.float32),
        np.array([-1.0, -2.1, -1.3, -2.5, -3.34, -4.0], np.float32),  # all negative
        np.array([1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9], np.float32),  # all positive
        np.zeros(4, np.float32),  # max == min
    ],
)
def test_dynamic_quantize_follows_the_spec_formula(x):
    y, s, z = dynamic_session().run(None, {"x": x})
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = np.float32((hi - lo) if hi != lo else 1.0) / np.float32(255)
    zp = np.rint(np.clip(np.float32(0) - np.float32(lo) / scale, 0, 255))
    assert s == scale and z == zp
    np.testing.assert_array_equal(y, np.clip(np.rint(x / scale) + zp, 0, 255).astype(np.uint8))


def test_dynamic_quantize_rejects_nan():
    with pytest.raises(ValueError, match="contains NaN"):
        dynamic_session().run(None, {"x": np.array([1, np.nan], np.float32)})
    assert dynamic_session().run(None, {"x": np.ones(2, np.float32)})[0].tolist() == [255, 255]


@pytest.mark.parametrize("n", [15, 16, 17, 33, 1000, 65536])
def test_dynamic_quantize_vector_code_follows_the_spec(n):
    # Lengths around the vector widths: the vector range and quantization (round half to
    # even, saturation) against the formula in numpy; halves placed exactly, NaN found in
    # the vector part and in the tail.
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    x[0], x[-1] = -2.0, 3.1  # a known range: scale = 5.1 / 255 = 0.02
    scale = np.float32(np.float32(3.1) - np.float32(-2.0)) / np.float32(255)
    x[1 : min(n - 1, 9)] = (np.arange(1, min(n - 1, 9)) + 0.5).astype(np.float32) * scale
    x = np.clip(x, -2.0, 3.1).astype(np.float32)
    y, s, z = dynamic_session().run(None, {"x": x})
    zp = np.rint(np.clip(np.float32(0) - np.float32(-2.0) / scale, 0, 255))
    assert s == scale and z == zp
    np.testing.assert_array_equal(y, np.clip(np.rint(x / scale) + zp, 0, 255).astype(np.uint8))
    for at in (0, n - 1, n // 2):
        bad = x.copy()
        bad[at] = np.nan
        with pytest.raises(ValueError, match="contains NaN"):
            dynamic_session().run(None, {"x": bad})


BAD_INPUTS = [
    (
        "QuantizeLinear",
        [("x", F), ("s", F)],
        {"out_type": TensorProto.UINT8, "axis": 1},
        {"x": f32(2, 3), "s": f32(2)},
        "per-axis scale must be \\[3\\]",
    ),
    (
        "DequantizeLinear",
        [("x", TensorProto.UINT8), ("s", F), ("z", TensorProto.UINT8)],
        {},
        {"x": np.ones(3, np.uint8), "s": f32(1), "z": np.ones(2, np.uint8)},
        "must have the scale's shape",
    ),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("q", [np.uint8, np.int8])
def test_per_tensor_fast_path_split_across_threads(threads, q):
    # 150,528 elements (an image of 224 x 224 x 3): above the 32k where two threads split
    # the per-tensor loop; every element exactly against numpy (half to even, saturated),
    # and back through DequantizeLinear.
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((1, 3, 224, 224)) * 40).astype(np.float32)
    x.flat[::997] = np.float32(0.5) * np.arange(x.size)[::997] % 7  # halves to round
    scale, zero = np.float32(0.25), q(3)
    onnx_q = TensorProto.UINT8 if q is np.uint8 else TensorProto.INT8
    info = np.iinfo(q)
    want = np.clip(np.rint(x / scale) + int(zero), info.min, info.max).astype(q)
    for op, feed, expect in [
        ("QuantizeLinear", x, want),
        ("DequantizeLinear", want, (want.astype(np.float32) - np.float32(zero)) * scale),
    ]:
        graph = helper.make_graph(
            [helper.make_node(op, ["x", "s", "z"], ["y"])],
            "g",
            [
                helper.make_tensor_value_info("x", F if op == "QuantizeLinear" else onnx_q, None),
                helper.make_tensor_value_info("s", F, None),
                helper.make_tensor_value_info("z", onnx_q, None),
            ],
            [helper.make_tensor_value_info("y", onnx_q if op == "QuantizeLinear" else F, None)],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
        s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
        (y,) = s.run(None, {"x": feed, "s": np.array(scale), "z": np.array(zero)})
        np.testing.assert_array_equal(y, expect, err_msg=op)


@pytest.mark.parametrize("threads", [1, 2])
def test_dynamic_quantize_in_chunks_split_between_threads(threads):
    # 200k values: the range and the codes in chunks of 32k split between the threads; the
    # range's extremes in the last chunk and the first: the same scale, zero point and codes
    # as DynamicQuantizeLinear's definition.
    rng = np.random.default_rng(21)
    x = rng.uniform(-3, 5, 200_000).astype(np.float32)
    x[-1], x[0] = 7.25, -4.5
    sess = dynamic_session(threads)
    y, s, z = sess.run(None, {"x": x})
    lo, hi = np.float32(min(0.0, x.min())), np.float32(max(0.0, x.max()))
    scale = np.float32((hi - lo) / np.float32(255))
    zp = np.float32(np.rint(np.clip(np.float32(0) - lo / scale, 0, 255)))
    assert s == scale and z == zp
    want = np.clip(np.rint(x / scale) + zp, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(y, want)
