"""com.microsoft QGemm (src/onnx_light/kernels/com_microsoft/qgemm.cc): uint8/int8 A with
uint8/int8 B, transA/transB, alpha, the int32 bias C in every broadcast shape, per-tensor
and per-column B parameters, quantized and float output; exact against the int64 product
and ORT's float32 scale written out in numpy, and against ONNX Runtime (B's codes kept
within +-63 so that its u8s8 kernels, which saturate pair sums on CPUs without VNNI, are
exact too)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F
from _ms import light_run, ms_model, ort_run
from _qops import F32, codes, elem, requantize, zero_point


def case(
    ta,
    tb,
    m,
    k,
    n,
    a_type=np.uint8,
    b_type=np.int8,
    c_shape=None,
    per_col=False,
    out_q=True,
    alpha=1.0,
    b_const=False,
):
    rng = np.random.default_rng(65)
    a = codes(rng, a_type, *((k, m) if ta else (m, k)))
    b = rng.integers(-63, 64, (n, k) if tb else (k, n)) + (64 if b_type == np.uint8 else 0)
    b = b.astype(b_type)
    sb = (rng.random(n) * 0.05 + 0.01).astype(F32) if per_col else np.array(0.03, F32)
    zb = (rng.integers(0, 5, n) if per_col else np.array(2)).astype(b_type)
    inits = {"as": np.array(0.02, F32), "az": zero_point(7, a_type), "bs": sb, "bz": zb}
    ins = [
        ("a", elem(a_type)),
        ("as", None),
        ("az", None),
        ("b", elem(b_type)),
        ("bs", None),
        ("bz", None),
    ]
    acc = ((a.T if ta else a).astype(np.int64) - int(inits["az"])) @ (
        (b.T if tb else b).astype(np.int64) - zb.astype(np.int64)
    )
    if c_shape is not None:
        c = rng.integers(-2000, 2000, c_shape).astype(np.int32)
        inits["c"] = c
        if c.size in (1, n) or c.shape in ((m, 1), (m, n)):  # else a refusal test
            acc = acc + c
    ins.append(("c" if c_shape is not None else "", None))
    scale = F32(alpha) * F32(0.02) * sb
    if out_q:
        ys, yz = F32(0.4), zero_point(-5, a_type)
        inits["ys"], inits["yz"] = np.array(ys, F32), yz
        ins += [("ys", None), ("yz", None)]
        want = requantize(acc.astype(F32) * (scale / ys), int(yz), a_type)
        out = elem(a_type)
    else:
        want = acc.astype(F32) * scale
        out = F
    feeds = {"a": a, "b": b}
    if b_const:  # a weight: packed once when the session is made
        inits["b"] = feeds.pop("b")
        ins[3] = ("b", None)
    model = ms_model("QGemm", ins, [("y", out)], inits, transA=ta, transB=tb, alpha=alpha)
    return model, feeds, want


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("out_q", [True, False])
@pytest.mark.parametrize(
    "a_type,b_type", [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)]
)
def test_qgemm_transposes_and_types(ta, tb, out_q, a_type, b_type):
    model, feeds, want = case(ta, tb, 5, 33, 7, a_type, b_type, out_q=out_q)
    (got,) = light_run(model, feeds)
    (theirs,) = ort_run(model, feeds)
    if out_q:
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(theirs, want)
    else:
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(theirs, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("c_shape", [(), (1,), (7,), (1, 7), (5, 1), (5, 7)])
@pytest.mark.parametrize("per_col", [False, True])
def test_qgemm_bias_shapes_per_column_b_and_alpha(c_shape, per_col):
    model, feeds, want = case(0, 1, 5, 16, 7, c_shape=c_shape, per_col=per_col, alpha=0.5)
    (got,) = light_run(model, feeds)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ort_run(model, feeds)[0], want)


@pytest.mark.parametrize("ta,tb", [(0, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("m", [1, 5])
@pytest.mark.parametrize(
    "a_type,b_type", [(np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.int8)]
)
def test_qgemm_constant_b_packed_once(ta, tb, m, a_type, b_type):
    model, feeds, want = case(ta, tb, m, 70, 37, a_type, b_type, per_col=True, b_const=True)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)


def test_qgemm_one_row_and_long_k():
    model, feeds, want = case(0, 0, 1, 1000, 64)
    np.testing.assert_array_equal(light_run(model, feeds)[0], want)
    np.testing.assert_array_equal(ort_run(model, feeds)[0], want)


def test_qgemm_refuses_a_bias_that_does_not_broadcast_and_a_lone_y_scale():
    model, feeds, _ = case(0, 0, 5, 8, 7, c_shape=(5, 2))
    with pytest.raises(ValueError, match="QGemm.*C \\[5, 2\\] does not broadcast"):
        light_run(model, feeds)
    model, feeds, _ = case(0, 0, 2, 3, 4)
    del model.graph.node[0].input[8]
    model.graph.output[0].type.tensor_type.elem_type = F  # without y_zero_point Y is float
    with pytest.raises(ValueError, match="QGemm.*y_scale and y_zero_point come together"):
        light_run(model, feeds)
