"""Shared by the tests of the com.microsoft quantized kernels
(tests/python/kernels/com_microsoft/test_q*.py and friends): 8-bit codes, MLAS's
quantization written out in numpy float32 (the exact reference: saturate(round_half_even(
v / scale) + zero_point)), and the comparison with ONNX Runtime, whose vector paths may
round a value on the other side of a tie or use fixed-point multipliers on some CPUs: its
codes are allowed to differ by one, onnx-light's must equal the reference."""

from __future__ import annotations

import numpy as np
from _graphs import I8, U8
from _ms import light_run, ms_model, ort_run

F32 = np.float32


def elem(dtype):
    return U8 if np.dtype(dtype) == np.uint8 else I8


def codes(rng, dtype, *shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def quantize(v, scale, zp, dtype):
    """MLAS QuantizeLinear in float32."""
    info = np.iinfo(dtype)
    q = np.rint(np.asarray(v, F32) / F32(scale)) + F32(zp)
    return np.clip(q, info.min, info.max).astype(dtype)


def requantize(v, zp, dtype):
    """saturate(round_half_even(v) + zp), v already in the output's units (float32)."""
    info = np.iinfo(dtype)
    q = np.rint(np.asarray(v, F32)) + F32(zp)
    return np.clip(q, info.min, info.max).astype(dtype)


def centered(x, zp):
    return (x.astype(np.int32) - np.int32(zp)).astype(F32)


def check_codes(model, feeds, want, ort_off=1):
    """onnx-light equals `want` exactly; ORT within `ort_off` codes. Returns onnx-light's."""
    got = light_run(model, feeds)
    theirs = ort_run(model, feeds)
    for g, w, o in zip(got, want, theirs):
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_array_equal(g, w)
        assert o.shape == g.shape and o.dtype == g.dtype
        off = np.abs(o.astype(np.int32) - g.astype(np.int32)).max() if g.size else 0
        assert off <= ort_off, f"ORT differs by {off} codes"
    return got


def zero_point(z, dtype):
    """`z` as a zero point of `dtype` (its magnitude for uint8), or None."""
    if z is None:
        return None
    return np.array(abs(int(z)) if np.dtype(dtype) == np.uint8 else int(z), dtype)


def binary_case(op, dtype, sa, sb, zps=(3, -2, 7), scales=(0.05, 0.02, 0.04)):
    """A one-node model of a QLinear binary op (A, B and C with one scale and zero point
    each; a zero point of None is left out), its feeds, A, B, the scales and zero points."""
    rng = np.random.default_rng(60)
    a, b = codes(rng, dtype, *sa), codes(rng, dtype, *sb)
    za, zb, zc = (zero_point(z, dtype) for z in zps)
    s = [np.array(v, F32) for v in scales]
    inits = {"as": s[0], "bs": s[1], "cs": s[2]}
    ins = [("a", elem(dtype)), ("as", None), ("az" if za is not None else "", None)]
    ins += [("b", elem(dtype)), ("bs", None), ("bz" if zb is not None else "", None)]
    ins += [("cs", None), ("cz" if zc is not None else "", None)]
    for n, z in (("az", za), ("bz", zb), ("cz", zc)):
        if z is not None:
            inits[n] = z
    model = ms_model(op, ins, [("c", elem(dtype))], inits)
    zs = [0 if z is None else int(z) for z in (za, zb, zc)]
    return model, {"a": a, "b": b}, a, b, s, zs


def unary_case(op, dtype, shape, xq=(0.08, 5), yq=(0.01, -3), **attrs):
    """A one-node model of a QLinear unary op, its feeds and X."""
    x = codes(np.random.default_rng(61), dtype, *shape)
    inits = {"xs": np.array(xq[0], F32), "ys": np.array(yq[0], F32)}
    ins = [("x", elem(dtype)), ("xs", None), ("xz", None), ("ys", None), ("yz", None)]
    inits["xz"], inits["yz"] = zero_point(xq[1], dtype), zero_point(yq[1], dtype)
    return ms_model(op, ins, [("y", elem(dtype))], inits, **attrs), {"x": x}, x


def table_ref(fn, x, xq, yq, dtype):
    """The op's code table applied to x: quantize(fn(x_scale * (x - x_zp)))."""
    zx, zy = int(zero_point(xq[1], dtype)), int(zero_point(yq[1], dtype))
    v = F32(xq[0]) * centered(x, zx)
    return quantize(fn(v).astype(F32), yq[0], zy, dtype)
