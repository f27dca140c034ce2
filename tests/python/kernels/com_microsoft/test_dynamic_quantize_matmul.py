"""com.microsoft DynamicQuantizeMatMul
(src/onnx_light/kernels/com_microsoft/dynamic_quantize_matmul.cc): A quantized as
DynamicQuantizeLinear does, then the exact integer product scaled; against that written out
in numpy (exact) and against ONNX Runtime (its own quantization of A and, without VNNI,
saturating u8s8 sums: within 1e-5 of the output's scale where B's codes stay within +-63)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import light_run, ms_model, ort_run
from _qops import F32, elem


def dynamic_quantize(a):
    lo, hi = min(F32(0), a.min()), max(F32(0), a.max())
    scale = (F32(1) if hi == lo else F32(hi - lo)) / F32(255)
    zp = np.rint(np.clip(F32(0) - lo / scale, 0, 255))
    q = np.clip(np.rint(a / scale) + zp, 0, 255).astype(np.uint8)
    return q, scale, int(zp)


def reference(a, b, sb, zb, bias):
    q, sa, za = dynamic_quantize(a)
    acc = (q.astype(np.int64) - za) @ (b.astype(np.int64) - np.asarray(zb, np.int64))
    y = acc.astype(F32) * (sa * sb)
    return y if bias is None else y + bias


def case(a_shape, n, b_type=np.int8, per_col=False, zp=True, bias=True, scale=1.0, b_const=False):
    rng = np.random.default_rng(67)
    a = (rng.standard_normal(a_shape) * scale).astype(F32)
    k = a_shape[-1]
    b = (rng.integers(-63, 64, (k, n)) + (64 if b_type == np.uint8 else 0)).astype(b_type)
    sb = (rng.random(n) * 0.05 + 0.01).astype(F32) if per_col else np.array(0.02, F32)
    zb = (rng.integers(0, 4, n) if per_col else np.array(1)).astype(b_type)
    inits = {"bs": sb}
    ins = [("a", F), ("b", elem(b_type)), ("bs", None)]
    if zp:
        inits["bz"] = zb
    ins.append(("bz" if zp else "", None))
    if bias:
        inits["bias"] = rng.standard_normal(n).astype(F32)
        ins.append(("bias", None))
    want = reference(a, b, sb, zb if zp else 0, inits.get("bias"))
    feeds = {"a": a, "b": b}
    if b_const:  # a weight: packed once when the session is made
        inits["b"] = feeds.pop("b")
        ins[1] = ("b", None)
    model = ms_model("DynamicQuantizeMatMul", ins, [("y", F)], inits)
    return model, feeds, want


@pytest.mark.parametrize("a_shape,n", [((1, 16), 8), ((5, 33), 7), ((2, 3, 64), 40)])
@pytest.mark.parametrize("b_type", [np.int8, np.uint8])
@pytest.mark.parametrize("per_col", [False, True])
def test_dynamic_quantize_matmul_matches_exact_and_ort(a_shape, n, b_type, per_col):
    model, feeds, want = case(a_shape, n, b_type, per_col)
    (got,) = light_run(model, feeds)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(ort_run(model, feeds)[0], want, rtol=1e-5, atol=1e-4)


def test_dynamic_quantize_matmul_all_zero_all_positive_and_no_bias():
    model, feeds, want = case((3, 10), 4, scale=0.0, zp=False, bias=False)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)
    feeds["a"] = np.abs(feeds["a"]) + 1  # the range still starts at 0
    want = reference(feeds["a"], feeds["b"], F32(0.02), 0, None)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)


def test_dynamic_quantize_matmul_refuses_nan():
    model, feeds, _ = case((2, 4), 3)
    feeds["a"][0, 1] = np.nan
    with pytest.raises(ValueError, match="DynamicQuantizeMatMul.*NaN"):
        light_run(model, feeds)


@pytest.mark.parametrize("a_shape,n", [((1, 256), 300), ((7, 33), 70)])
@pytest.mark.parametrize("b_type", [np.int8, np.uint8])
@pytest.mark.parametrize("zp", [False, True])
def test_dynamic_quantize_matmul_constant_b_packed_once(a_shape, n, b_type, zp):
    model, feeds, want = case(a_shape, n, b_type, per_col=True, zp=zp, b_const=True)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)
    np.testing.assert_allclose(ort_run(model, feeds)[0], want, rtol=1e-5, atol=1e-4)
