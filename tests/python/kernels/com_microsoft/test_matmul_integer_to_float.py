"""com.microsoft MatMulIntegerToFloat
(src/onnx_light/kernels/com_microsoft/matmul_integer_to_float.cc): uint8/int8 operands,
batched and 2-D, with and without zero points and bias, per-tensor and per-column b_scale;
exact against the int64 product and the float32 scale written out in numpy, and against
ONNX Runtime (B's codes within +-63, where its u8s8 kernels are exact on every CPU)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import light_run, ms_model, ort_run
from _qops import F32, codes, elem

from onnx_light.onnx import numpy_helper


def case(
    a_shape,
    b_shape,
    a_type=np.uint8,
    b_type=np.int8,
    zps=True,
    bias=True,
    per_col=False,
    b_const=False,
):
    rng = np.random.default_rng(66)
    n = b_shape[-1]
    a = codes(rng, a_type, *a_shape)
    b = (rng.integers(-63, 64, b_shape) + (64 if b_type == np.uint8 else 0)).astype(b_type)
    sa = np.array(0.02, F32)
    sb = (rng.random(n) * 0.05 + 0.01).astype(F32) if per_col else np.array(0.03, F32)
    inits = {"as": sa, "bs": sb}
    za = np.array(9 if a_type == np.uint8 else -3, a_type)
    zb = (rng.integers(0, 5, n) if per_col else np.array(2)).astype(b_type)
    ins = [("a", elem(a_type)), ("b", elem(b_type)), ("as", None), ("bs", None)]
    if zps:
        inits["az"], inits["bz"] = za, zb
    ins += [("az" if zps else "", None), ("bz" if zps else "", None)]
    acc = (a.astype(np.int64) - (int(za) if zps else 0)) @ (
        b.astype(np.int64) - (zb.astype(np.int64) if zps else 0)
    )
    want = acc.astype(F32) * (sa * sb)
    if bias:
        inits["bias"] = (rng.standard_normal(n)).astype(F32)
        ins.append(("bias", None))
        want = want + inits["bias"]
    feeds = {"a": a, "b": b}
    if b_const:  # a weight: packed once when the session is made
        inits["b"] = feeds.pop("b")
        ins[1] = ("b", None)
    model = ms_model("MatMulIntegerToFloat", ins, [("y", F)], inits)
    return model, feeds, want


@pytest.mark.parametrize(
    "a_shape,b_shape", [((3, 20), (20, 6)), ((2, 4, 9), (9, 5)), ((1, 1, 64), (64, 33))]
)
@pytest.mark.parametrize(
    "a_type,b_type", [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)]
)
@pytest.mark.parametrize("per_col", [False, True])
def test_matmul_integer_to_float_matches_exact_products_and_ort(
    a_shape, b_shape, a_type, b_type, per_col
):
    model, feeds, want = case(a_shape, b_shape, a_type, b_type, per_col=per_col)
    (got,) = light_run(model, feeds)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(ort_run(model, feeds)[0], want, rtol=1e-6, atol=1e-5)


def test_matmul_integer_to_float_without_zero_points_or_bias():
    model, feeds, want = case((4, 8), (8, 3), zps=False, bias=False)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)
    np.testing.assert_allclose(ort_run(model, feeds)[0], want, rtol=1e-6)


def test_matmul_integer_to_float_refuses_a_wrong_sized_scale():
    model, feeds, _ = case((4, 8), (8, 3))
    model.graph.initializer[1].CopyFrom(numpy_helper.from_array(np.ones(2, F32), "bs"))
    with pytest.raises(ValueError, match="MatMulIntegerToFloat.*b_scale .* one per column"):
        light_run(model, feeds)


@pytest.mark.parametrize("a_shape", [(1, 96), (2, 5, 96)])
@pytest.mark.parametrize(
    "a_type,b_type", [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)]
)
@pytest.mark.parametrize("zps", [False, True])
def test_matmul_integer_to_float_constant_b_packed_once(a_shape, a_type, b_type, zps):
    model, feeds, want = case(
        a_shape, (96, 130), a_type, b_type, zps=zps, per_col=True, b_const=True
    )
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)
