"""com.microsoft GroupQueryAttention
(src/onnx_light/kernels/com_microsoft/group_query_attention.cc): prompts (padded on the
right too), decode steps over a past cache with per-batch lengths, a continued prompt,
packed QKV, rotary (halves and interleaved), local windows, softcap, smooth softmax and head
sinks; against a float64 reference and ONNX Runtime (outputs and present caches)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F
from _ms import light_run, ms_model, ort_run, randn

N, KV, HS = 4, 2, 16
OP = "GroupQueryAttention"


def rotate(x, pos, cos, sin, interleaved):
    """x [..., S, HS] rows rotated by positions pos [S] (float64)."""
    c, s = cos[pos].astype(np.float64), sin[pos].astype(np.float64)
    out = x.copy()
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2], out[..., 1::2] = a * c - b * s, a * s + b * c
    else:
        h = HS // 2
        a, b = x[..., :h], x[..., h:]
        out[..., :h], out[..., h:] = a * c - b * s, a * s + b * c
    return out


def reference(
    q,
    k,
    v,
    past_k,
    past_v,
    seqlens,
    total,
    window=-1,
    softcap=0.0,
    sink=None,
    rot=None,
    interleaved=False,
):
    """Output [B, S, N*HS] and present caches, float64."""
    b_, s_ = q.shape[:2]
    p_ = 0 if past_k is None else past_k.shape[2]
    present = max(total, p_)
    qh = q.reshape(b_, s_, N, HS).transpose(0, 2, 1, 3).astype(np.float64)
    kh = k.reshape(b_, s_, KV, HS).transpose(0, 2, 1, 3).astype(np.float64)
    vh = v.reshape(b_, s_, KV, HS).transpose(0, 2, 1, 3).astype(np.float64)
    pk = np.zeros((b_, KV, present, HS))
    pv = np.zeros((b_, KV, present, HS))
    y = np.zeros((b_, s_, N * HS))
    for b in range(b_):
        t = seqlens[b] + 1
        pb = 0 if s_ == total else t - s_
        pos = np.array([pb + i if pb + i < t else 1 for i in range(s_)])
        qb, kb = qh[b], kh[b]
        if rot is not None:
            qb, kb = rotate(qb, pos, *rot, interleaved), rotate(kb, pos, *rot, interleaved)
        if pb:
            pk[b, :, :pb], pv[b, :, :pb] = past_k[b, :, :pb], past_v[b, :, :pb]
        pk[b, :, pb : pb + s_], pv[b, :, pb : pb + s_] = kb, vh[b]
        for h in range(N):
            g = h // (N // KV)
            for i in range(s_):
                end = min(pb + i + 1, t)
                begin = end - window if window > 0 and end > window else 0
                sc = pk[b, g, begin:end] @ qb[h, i] / np.sqrt(HS)
                if softcap:
                    sc = softcap * np.tanh(sc / softcap)
                m = sc.max() if sink is None else max(sc.max(), sink[h])
                e = np.exp(sc - m)
                den = e.sum() + (0 if sink is None else np.exp(sink[h] - m))
                y[b, i, h * HS : (h + 1) * HS] = (e / den) @ pv[b, g, begin:end]
    return y, pk, pv


def case(batch, seq, past, seqlens, total, packed=False, rotary=None, sink=False, **attrs):
    rng = np.random.default_rng(90 + seq + past)
    q = randn(rng, batch, seq, N * HS)
    k, v = randn(rng, batch, seq, KV * HS), randn(rng, batch, seq, KV * HS)
    feeds = {}
    ins = []
    if packed:
        feeds["q"] = np.concatenate([q, k, v], axis=2)
        ins += [("q", F), ("", F), ("", F)]
    else:
        feeds |= {"q": q, "k": k, "v": v}
        ins += [("q", F), ("k", F), ("v", F)]
    past_k = past_v = None
    if past:
        past_k, past_v = randn(rng, batch, KV, past, HS), randn(rng, batch, KV, past, HS)
        feeds |= {"pk": past_k, "pv": past_v}
        ins += [("pk", F), ("pv", F)]
    else:
        ins += [("", F), ("", F)]
    feeds["seqlens"] = np.array(seqlens, np.int32)
    feeds["total"] = np.array(total, np.int32)
    ins += [("seqlens", I32), ("total", I32)]
    inits = {}
    rot = None
    if rotary is not None:
        maxpos = 64
        freq = 1.0 / (10000 ** (np.arange(HS // 2) * 2 / HS))
        ang = np.arange(maxpos)[:, None] * freq
        rot = (np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
        inits = {"cos": rot[0], "sin": rot[1]}
        ins += [("cos", None), ("sin", None)]
        attrs |= dict(do_rotary=1, rotary_interleaved=int(rotary))
    sinks = np.zeros(N, np.float32) if attrs.get("smooth_softmax") else None
    if sink:
        sinks = rng.standard_normal(N).astype(np.float32)
        if rotary is None:
            ins += [("", F), ("", F)]
        ins += [("", F), ("", F), ("sink", None)]
        inits["sink"] = sinks
    outs = [("y", F), ("present_k", F), ("present_v", F)]
    model = ms_model(OP, ins, outs, inits, num_heads=N, kv_num_heads=KV, **attrs)
    want = reference(
        q,
        k,
        v,
        past_k,
        past_v,
        seqlens,
        total,
        window=attrs.get("local_window_size", -1),
        softcap=attrs.get("softcap", 0.0),
        sink=sinks,
        rot=rot,
        interleaved=bool(rotary),
    )
    return model, feeds, want


def check(valid_rows=None, **kw):
    model, feeds, want = case(**kw)
    got = light_run(model, feeds)
    theirs = ort_run(model, feeds)
    for g, w, o in zip(got, want, theirs):
        if valid_rows is not None and g.ndim == 3:  # right-padded prompt: valid rows only
            for b, n in enumerate(valid_rows):
                np.testing.assert_allclose(g[b, :n], w[b, :n], rtol=1e-4, atol=1e-5)
                np.testing.assert_allclose(g[b, :n], o[b, :n], rtol=1e-4, atol=1e-5)
            continue
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g, o, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("seq", [1, 5, 16])
def test_gqa_prompt(packed, seq):
    check(batch=2, seq=seq, past=0, seqlens=[seq - 1] * 2, total=seq, packed=packed)


@pytest.mark.parametrize("past_lens", [[0, 0], [3, 7], [7, 5]])
def test_gqa_decode_step_with_per_batch_lengths(past_lens):
    check(batch=2, seq=1, past=7, seqlens=past_lens, total=max(past_lens) + 1)


def test_gqa_decode_step_growing_the_cache():
    check(batch=1, seq=1, past=4, seqlens=[4], total=5)


def test_gqa_continued_prompt():
    check(batch=1, seq=3, past=6, seqlens=[8], total=9)


def test_gqa_prompt_padded_on_the_right():
    check(batch=2, seq=6, past=0, seqlens=[5, 2], total=6, valid_rows=[6, 3])


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("seq,past,seqlens,total", [(5, 0, [4, 4], 5), (1, 6, [6, 3], 7)])
def test_gqa_rotary(interleaved, seq, past, seqlens, total):
    check(batch=2, seq=seq, past=past, seqlens=seqlens, total=total, rotary=interleaved)


@pytest.mark.parametrize(
    "attrs", [dict(local_window_size=3), dict(softcap=2.0), dict(local_window_size=2, softcap=1.5)]
)
def test_gqa_local_window_and_softcap(attrs):
    check(batch=2, seq=7, past=0, seqlens=[6, 6], total=7, **attrs)
    check(batch=2, seq=1, past=8, seqlens=[8, 5], total=9, **attrs)


def test_gqa_smooth_softmax_and_head_sink():
    check(batch=2, seq=4, past=0, seqlens=[3, 3], total=4, smooth_softmax=1, sink=False)
    check(batch=2, seq=1, past=5, seqlens=[5, 2], total=6, sink=True)


def test_gqa_refuses_lengths_that_do_not_fit_the_cache():
    model, feeds, _ = case(batch=1, seq=1, past=4, seqlens=[4], total=5)
    feeds["seqlens"] = np.array([9], np.int32)
    with pytest.raises(ValueError, match="GroupQueryAttention.*seqlens_k\\[0\\] = 9 does not fit"):
        light_run(model, feeds)
