"""com.microsoft QAttention (src/onnx_light/kernels/com_microsoft/qattention.cc): the integer
Q/K/V projection (uint8 input, int8 or uint8 weights, per-tensor and per-column weight
scales and zero points) then com.microsoft Attention with masks and past; against exact
integer products and a float64 attention, and against ONNX Runtime (weights within +-63,
where its u8s8 kernels are exact on every CPU)."""

from __future__ import annotations

import numpy as np
import pytest
from _attention_ref import heads, key_mask_bias, merge, sdpa
from _graphs import I32, F
from _ms import light_run, ms_model, ort_run
from _qops import F32, elem

B, N, H = 2, 3, 8
D = N * H


def case(seq, w_type=np.int8, per_col=False, mask=None, past_len=None, causal=0):
    rng = np.random.default_rng(97)
    x = rng.integers(0, 256, (B, seq, D)).astype(np.uint8)
    w = (rng.integers(-63, 64, (D, 3 * D)) + (64 if w_type == np.uint8 else 0)).astype(w_type)
    bias = rng.standard_normal(3 * D).astype(F32)
    xs = np.array(0.01, F32)
    ws = (rng.random(3 * D) * 0.01 + 0.002).astype(F32) if per_col else np.array(0.005, F32)
    xz = np.array(120, np.uint8)
    wz = (rng.integers(0, 3, 3 * D) if per_col else np.array(1)).astype(w_type)
    inits = {"w": w, "bias": bias, "xs": xs, "ws": ws, "xz": xz, "wz": wz}
    ins = [
        ("x", elem(np.uint8)),
        ("w", None),
        ("bias", None),
        ("xs", None),
        ("ws", None),
        ("mask" if mask is not None else "", I32),
        ("xz", None),
        ("wz", None),
    ]
    feeds = {"x": x}
    if mask is not None:
        feeds["mask"] = mask
    outs = [("y", F)]
    past = None
    if past_len is not None:
        past = rng.standard_normal((2, B, N, past_len, H)).astype(F32)
        feeds["past"] = past
        ins.append(("past", F))
        outs.append(("present", F))
    model = ms_model("QAttention", ins, outs, inits, num_heads=N, unidirectional=causal)
    acc = (x.astype(np.int64) - 120) @ (w.astype(np.int64) - wz.astype(np.int64))
    qkv = (acc.astype(F32) * (xs * ws) + bias).astype(np.float64)
    q, k, v = heads(qkv[..., :D], N), heads(qkv[..., D : 2 * D], N), heads(qkv[..., 2 * D :], N)
    if past is not None:
        k, v = np.concatenate([past[0], k], 2), np.concatenate([past[1], v], 2)
    t = k.shape[2]
    total_bias = key_mask_bias(mask, B, seq, t)
    if causal:
        total_bias = total_bias + np.triu(np.full((seq, t), -3.4e38), t - seq + 1)
    want = [merge(sdpa(q, k, v, 1 / np.sqrt(H), total_bias))]
    if past is not None:
        want.append(np.stack([k, v]))
    return model, feeds, want


def check(**kw):
    model, feeds, want = case(**kw)
    got = light_run(model, feeds)
    theirs = ort_run(model, feeds)
    for g, w, o in zip(got, want, theirs):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g, o, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seq", [1, 5, 9])
@pytest.mark.parametrize("w_type", [np.int8, np.uint8])
@pytest.mark.parametrize("per_col", [False, True])
def test_qattention_projection_types_and_scales(seq, w_type, per_col):
    check(seq=seq, w_type=w_type, per_col=per_col)


def test_qattention_key_lengths_mask():
    check(seq=6, mask=np.array([6, 3], np.int32))


@pytest.mark.parametrize("past_len", [0, 4])
def test_qattention_gpt2_style_past_and_causal(past_len):
    check(seq=1 if past_len else 5, past_len=past_len, causal=1)


def test_qattention_refuses_a_wrong_sized_weight_scale():
    model, feeds, _ = case(seq=2)
    from onnx_light.onnx import numpy_helper

    i = next(k for k, t in enumerate(model.graph.initializer) if t.name == "ws")
    model.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.ones(5, F32), "ws"))
    with pytest.raises(ValueError, match="QAttention.*weight_scale .* one per column"):
        light_run(model, feeds)
