"""The float8, float4 and 2/4-bit integer types: Cast in both directions against ml_dtypes
(bit for bit, every code and many float32 values), FLOAT8E8M0's rounding modes against
the ONNX reference helper, packed sub-byte tensors at the Python boundary, and the
Quantize/Dequantize kernels for these types. Tolerance: exact (codes are compared; any
NaN code matches any NaN)."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest
from onnx import numpy_helper as onnx_numpy_helper  # the ONNX reference: an oracle only

import onnx_light
from onnx_light.onnx import TensorProto, helper

F = TensorProto.FLOAT
FLOATS = {
    TensorProto.FLOAT8E4M3FN: md.float8_e4m3fn,
    TensorProto.FLOAT8E4M3FNUZ: md.float8_e4m3fnuz,
    TensorProto.FLOAT8E5M2: md.float8_e5m2,
    TensorProto.FLOAT8E5M2FNUZ: md.float8_e5m2fnuz,
    TensorProto.FLOAT4E2M1: md.float4_e2m1fn,
}
INTS = {
    TensorProto.INT4: md.int4,
    TensorProto.UINT4: md.uint4,
    TensorProto.INT2: md.int2,
    TensorProto.UINT2: md.uint2,
}


def cast_session(src, dst, opset=25, **attrs):
    node = helper.make_node("Cast", ["x"], ["y"], to=dst, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", src, None)],
        [helper.make_tensor_value_info("y", dst, None)],
    )
    return onnx_light.RuntimeSession(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )


def all_codes(dtype):
    bits = 4 if dtype in (md.float4_e2m1fn, md.int4, md.uint4) else 8
    if dtype in (md.int2, md.uint2):
        bits = 2
    return np.arange(1 << bits, dtype=np.uint8).view(dtype)


def probe_values(dtype):
    """Every finite value of the type, the midpoints between neighbours (ties), values just
    either side of them, beyond the range, specials and random float32s."""
    vals = np.unique(all_codes(dtype).astype(np.float64))
    vals = vals[np.isfinite(vals)]
    mids = (vals[1:] + vals[:-1]) / 2
    rng = np.random.default_rng(0)
    top = float(vals.max())
    rand = rng.uniform(-1.5 * top, 1.5 * top, 4000)
    tiny = rng.uniform(-2 * float(np.min(np.abs(vals[vals != 0]))), 0, 500)
    x = np.concatenate(
        [vals, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf), rand, tiny, -rand]
    ).astype(np.float32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30], np.float32)
    return np.concatenate([x, specials])


def same_codes(got, want):
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    ok = both_nan | (got.view(np.uint8) == want.view(np.uint8))
    return ok


@pytest.mark.parametrize("onnx_type", list(FLOATS) + list(INTS))
def test_every_code_decodes_like_ml_dtypes(onnx_type):
    dtype = FLOATS.get(onnx_type) or INTS[onnx_type]
    codes = all_codes(dtype)
    got = cast_session(onnx_type, F).run(None, {"x": codes})[0]
    want = codes.astype(np.float32)
    np.testing.assert_array_equal(got, want)  # NaN positions must match too


@pytest.mark.parametrize("onnx_type", list(FLOATS))
@pytest.mark.parametrize("saturate", [1, 0])
def test_float32_encodes_like_ml_dtypes(onnx_type, saturate):
    dtype = FLOATS[onnx_type]
    x = probe_values(dtype)
    got = cast_session(F, onnx_type, saturate=saturate).run(None, {"x": x})[0]
    assert got.dtype == dtype
    if saturate and onnx_type != TensorProto.FLOAT4E2M1:
        info = md.finfo(dtype)
        want = np.clip(x, float(info.min), float(info.max)).astype(dtype)
    else:
        want = x.astype(dtype)
    ok = same_codes(got, want)
    assert ok.all(), [(x[i], got[i], want[i]) for i in np.flatnonzero(~ok)[:5]]


@pytest.mark.parametrize("onnx_type", list(INTS))
def test_float32_to_packed_int_truncates_and_wraps_like_ml_dtypes(onnx_type):
    dtype = INTS[onnx_type]
    x = np.array([0, 1.5, 2.5, -1.7, 7.9, 8, 9.5, -9.5, 20, -20, 1e10], np.float32)
    x = np.concatenate([x, np.random.default_rng(1).uniform(-40, 40, 999).astype(np.float32)])
    got = cast_session(F, onnx_type).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got.astype(np.int32), x.astype(dtype).astype(np.int32))
    # NaN and infinities become 0.
    got = cast_session(F, onnx_type).run(None, {"x": np.array([np.nan, np.inf], np.float32)})[0]
    np.testing.assert_array_equal(got.astype(np.int32), [0, 0])


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("saturate", [1, 0])
def test_e8m0_rounding_matches_onnx_reference(mode, saturate):
    rng = np.random.default_rng(2)
    x = np.concatenate(
        [
            np.ldexp(1.0, np.arange(-140, 128)).astype(np.float32),
            rng.uniform(0, 8, 500).astype(np.float32),
            np.ldexp(rng.uniform(1, 2, 500), rng.integers(-130, 128, 500)).astype(np.float32),
            np.array([1.5, 1.25, 1.75, 3.0, 0.0, np.inf, np.nan, -2.0, 3.4e38], np.float32),
        ]
    )
    got = cast_session(F, TensorProto.FLOAT8E8M0, saturate=saturate, round_mode=mode).run(
        None, {"x": x}
    )[0]
    want = onnx_numpy_helper.to_float8e8m0(x, bool(saturate), mode)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_bad_round_mode_is_an_error_and_the_process_stays_usable():
    s = cast_session(F, TensorProto.FLOAT8E8M0, round_mode="sideways")
    with pytest.raises(ValueError, match="round_mode 'sideways'"):
        s.run(None, {"x": np.ones(3, np.float32)})
    ok = cast_session(F, TensorProto.FLOAT8E8M0).run(None, {"x": np.ones(3, np.float32)})[0]
    np.testing.assert_array_equal(ok.astype(np.float32), [1, 1, 1])


@pytest.mark.parametrize("onnx_type", [TensorProto.INT4, TensorProto.UINT2, TensorProto.FLOAT4E2M1])
@pytest.mark.parametrize("n", [0, 1, 3, 7, 8, 1001])
def test_packed_tensors_round_trip_at_the_python_boundary(onnx_type, n):
    dtype = FLOATS.get(onnx_type) or INTS[onnx_type]
    codes = all_codes(dtype)
    x = np.resize(codes, n).reshape(n, 1)
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx_type, None)],
        [helper.make_tensor_value_info("y", onnx_type, None)],
    )
    s = onnx_light.RuntimeSession(helper.make_model(graph))
    got = s.run(None, {"x": x})[0]
    assert got.dtype == dtype and got.shape == (n, 1)
    np.testing.assert_array_equal(got.view(np.uint8), x.view(np.uint8))


def test_packed_int4_to_int8_sign_extends():
    x = np.array([-8, -1, 0, 7, 3], md.int4)
    got = cast_session(TensorProto.INT4, TensorProto.INT8).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, [-8, -1, 0, 7, 3])


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


def dynamic_session():
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
    return onnx_light.RuntimeSession(helper.make_model(graph))


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
