"""com.microsoft MultiHeadAttention
(src/onnx_light/kernels/com_microsoft/multi_head_attention.cc): self and cross attention in
ORT's CPU layouts (3-D Q/K/V with bias, per-head K/V, packed QKV), masks, attention_bias,
past/present (empty and not) and odd lengths, against a float64 reference and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _attention_ref import heads, key_mask_bias, merge, sdpa
from _graphs import I32, F
from _ms import check_vs_ort, light_run, ms_model, randn

B, N, H = 2, 4, 8
D = N * H
OP = "MultiHeadAttention"


def build(seq, kv, layout="bsd", bias=True, mask=None, extra=False, past=None, causal=0, vh=H):
    """Inputs, feeds and the float64 reference output (and presents)."""
    rng = np.random.default_rng(40)
    dv = N * vh
    q = randn(rng, B, seq, D)
    bq, bk, bv = randn(rng, D), randn(rng, D), randn(rng, dv)
    b64 = [x.astype(np.float64) for x in (bq, bk, bv)] if bias else [0, 0, 0]
    feeds = {"q": q}
    ins = [("q", F)]
    if layout == "packed":
        qkv = randn(rng, B, seq, N, 3, H)
        feeds = {"q": qkv}
        ins += [("", F), ("", F)]
        qh = qkv[:, :, :, 0].transpose(0, 2, 1, 3) + (
            bq.reshape(N, H)[None, :, None] if bias else 0
        )
        kh = qkv[:, :, :, 1].transpose(0, 2, 1, 3) + (
            bk.reshape(N, H)[None, :, None] if bias else 0
        )
        vh_ = qkv[:, :, :, 2].transpose(0, 2, 1, 3) + (
            bv.reshape(N, H)[None, :, None] if bias else 0
        )
    elif layout == "bnsh":
        k, v = randn(rng, B, N, kv, H), randn(rng, B, N, kv, vh)
        feeds |= {"k": k, "v": v}
        ins += [("k", F), ("v", F)]
        qh, kh, vh_ = heads(q + b64[0], N), k.astype(np.float64), v.astype(np.float64)
    else:
        k, v = randn(rng, B, kv, D), randn(rng, B, kv, dv)
        feeds |= {"k": k, "v": v}
        ins += [("k", F), ("v", F)]
        qh, kh, vh_ = heads(q + b64[0], N), heads(k + b64[1], N), heads(v + b64[2], N)
    if bias:
        feeds["bias"] = np.concatenate([bq, bk, bv])
    ins.append(("bias" if bias else "", F))
    ins.append(("mask" if mask is not None else "", I32))
    if mask is not None:
        feeds["mask"] = mask
    outs = [("y", F)]
    if past is not None:
        pk, pv = randn(rng, B, N, past, H), randn(rng, B, N, past, vh)
        kh, vh_ = np.concatenate([pk, kh], 2), np.concatenate([pv, vh_], 2)
        feeds |= {"pk": pk, "pv": pv}
        outs += [("present_k", F), ("present_v", F)]
    t = kh.shape[2]
    ex = randn(rng, B, 1, seq, t) if extra else None
    ins.append(("extra" if extra else "", F))
    if extra:
        feeds["extra"] = ex
    if past is not None:
        ins += [("pk", F), ("pv", F)]
    total_bias = key_mask_bias(mask, B, seq, t)
    if causal:
        total_bias = total_bias + np.triu(np.full((seq, t), -3.4e38), t - seq + 1)
    if ex is not None:
        total_bias = total_bias + ex
    want = merge(sdpa(qh, kh, vh_, 1 / np.sqrt(H), total_bias))
    return ins, outs, feeds, [want] + ([kh, vh_] if past is not None else [])


def check(tol=1e-5, ort=True, **kw):
    causal = kw.get("causal", 0)
    ins, outs, feeds, want = build(**kw)
    m = ms_model(OP, ins, outs, num_heads=N, unidirectional=causal)
    got = check_vs_ort(m, feeds, rtol=1e-4, atol=tol) if ort else light_run(m, feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=tol)


@pytest.mark.parametrize("seq,kv", [(1, 1), (5, 5), (3, 9), (16, 7)])
@pytest.mark.parametrize("bias", [True, False])
def test_mha_cross_and_self_attention_3d(seq, kv, bias):
    check(seq=seq, kv=kv, bias=bias)


@pytest.mark.parametrize("layout", ["bnsh", "packed"])
def test_mha_per_head_kv_and_packed_qkv(layout):
    # ORT's CPU kernel refuses packed QKV ("not implemented for CPU"; its CUDA kernel takes
    # it): that layout is checked against the float64 reference alone.
    packed = layout == "packed"
    check(seq=6, kv=6 if packed else 11, layout=layout, ort=not packed)


@pytest.mark.parametrize(
    "mask",
    [
        np.array([5, 2], np.int32),
        np.array([[1, 1, 0, 0, 1], [1, 1, 1, 1, 0]], np.int32),
        np.random.default_rng(41).integers(0, 2, (B, 4, 5)).astype(np.int32),
    ],
    ids=["lengths", "raw2d", "raw3d"],
)
def test_mha_key_padding_masks(mask):
    check(seq=4, kv=5, mask=mask)


@pytest.mark.parametrize("past", [0, 1, 7])
@pytest.mark.parametrize("seq", [1, 4])
def test_mha_with_past_and_causal_decoding(past, seq):
    check(seq=seq, kv=seq, past=past, causal=1)


def test_mha_attention_bias_and_other_v_head_size():
    check(seq=5, kv=8, extra=True, vh=16)


@pytest.mark.parametrize(
    "shapes,message",
    [
        (((2, 3, D), (2, 3, D + 1), (2, 3, D)), "key .* must be"),
        (((2, 3, D + 1), (2, 3, D), (2, 3, D)), "not a multiple of 4 heads"),
        (((2, 3, N, 2, H), None, None), "packed QKV .* must be"),
        (((2, 3, D), (2, 3, N, 2, H), None), "must be \\[batch, seq, hidden\\] with key and value"),
    ],
)
def test_mha_refuses_bad_layouts(shapes, message):
    names = ["q", "k", "v"]
    ins = [(n if s else "", F) for n, s in zip(names, shapes)]
    feeds = {n: np.ones(s, np.float32) for n, s in zip(names, shapes) if s}
    with pytest.raises(ValueError, match=f"MultiHeadAttention, domain com.microsoft.*{message}"):
        light_run(ms_model(OP, ins, [("y", F)], num_heads=N), feeds)
