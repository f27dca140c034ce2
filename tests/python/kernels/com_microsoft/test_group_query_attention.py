"""com.microsoft GroupQueryAttention
(src/onnx_light/kernels/com_microsoft/group_query_attention.cc): prompts (padded on the
right too), decode steps over a past cache with per-batch lengths, a continued prompt,
packed QKV, rotary (halves and interleaved), local windows, softcap, smooth softmax, head
sinks, non-causal attention, attention_bias, qk_output (scores and probabilities) and
window-sized (sliding window) caches over whole generation loops; against a float64
reference and ONNX Runtime (outputs and present caches)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F
from _ms import light_run, ms_model, ort_run, randn

import onnx_light

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
    causal=True,
    bias=None,
):
    """Output [B, S, N*HS], present caches and the scores and probabilities [B, N, S,
    present] (0 for the keys a query does not see), float64."""
    b_, s_ = q.shape[:2]
    p_ = 0 if past_k is None else past_k.shape[2]
    present = max(total, p_)
    qh = q.reshape(b_, s_, N, HS).transpose(0, 2, 1, 3).astype(np.float64)
    kh = k.reshape(b_, s_, KV, HS).transpose(0, 2, 1, 3).astype(np.float64)
    vh = v.reshape(b_, s_, KV, HS).transpose(0, 2, 1, 3).astype(np.float64)
    pk = np.zeros((b_, KV, present, HS))
    pv = np.zeros((b_, KV, present, HS))
    y = np.zeros((b_, s_, N * HS))
    scores, probs = np.zeros((b_, N, s_, present)), np.zeros((b_, N, s_, present))
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
                end = min(pb + i + 1, t) if causal else t
                begin = end - window if window > 0 and end > window else 0
                sc = pk[b, g, begin:end] @ qb[h, i] / np.sqrt(HS)
                if softcap:
                    sc = softcap * np.tanh(sc / softcap)
                if bias is not None:  # after the cap, as ORT
                    sc = sc + bias[b % bias.shape[0], h % bias.shape[1], i, begin:end]
                m = sc.max() if sink is None else max(sc.max(), sink[h])
                e = np.exp(sc - m)
                den = e.sum() + (0 if sink is None else np.exp(sink[h] - m))
                y[b, i, h * HS : (h + 1) * HS] = (e / den) @ pv[b, g, begin:end]
                scores[b, h, i, begin:end], probs[b, h, i, begin:end] = sc, e / den
    return y, pk, pv, scores, probs


def case(
    batch, seq, past, seqlens, total, packed=False, rotary=None, sink=False, bias=None, **attrs
):
    """The model, feeds and float64 reference of one step. bias: the attention_bias shape
    (its last two dims seq and total), or None."""
    rng = np.random.default_rng(90 + seq + past)
    q = randn(rng, batch, seq, N * HS)
    k, v = randn(rng, batch, seq, KV * HS), randn(rng, batch, seq, KV * HS)
    feeds = {}
    ins = {}  # input index -> (name, type); the gaps are absent optional inputs
    if packed:
        feeds["q"] = np.concatenate([q, k, v], axis=2)
        ins[0] = ("q", F)
    else:
        feeds |= {"q": q, "k": k, "v": v}
        ins |= {0: ("q", F), 1: ("k", F), 2: ("v", F)}
    past_k = past_v = None
    if past:
        past_k, past_v = randn(rng, batch, KV, past, HS), randn(rng, batch, KV, past, HS)
        feeds |= {"pk": past_k, "pv": past_v}
        ins |= {3: ("pk", F), 4: ("pv", F)}
    feeds["seqlens"] = np.array(seqlens, np.int32)
    feeds["total"] = np.array(total, np.int32)
    ins |= {5: ("seqlens", I32), 6: ("total", I32)}
    inits = {}
    rot = None
    if rotary is not None:
        maxpos = 64
        freq = 1.0 / (10000 ** (np.arange(HS // 2) * 2 / HS))
        ang = np.arange(maxpos)[:, None] * freq
        rot = (np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
        inits = {"cos": rot[0], "sin": rot[1]}
        ins |= {7: ("cos", None), 8: ("sin", None)}
        attrs |= dict(do_rotary=1, rotary_interleaved=int(rotary))
    bias_values = None
    if bias is not None:
        bias_values = randn(rng, *bias)
        feeds["bias"] = bias_values
        ins[10] = ("bias", F)
    sinks = np.zeros(N, np.float32) if attrs.get("smooth_softmax") else None
    if sink:
        sinks = rng.standard_normal(N).astype(np.float32)
        ins[11] = ("sink", None)
        inits["sink"] = sinks
    inputs = [ins.get(i, ("", F)) for i in range(max(ins) + 1)]
    outs = [("y", F), ("present_k", F), ("present_v", F)]
    if attrs.get("qk_output"):
        outs.append(("qk", F))
    model = ms_model(OP, inputs, outs, inits, num_heads=N, kv_num_heads=KV, **attrs)
    if attrs.get("sliding_window_cache"):  # the loop test below has its own reference
        return model, feeds, None
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
        causal=attrs.get("causal", 1) == 1,
        bias=bias_values,
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


def check_qk(seqlens, **kw):
    """qk_output's scores / probabilities against the reference and ORT, each batch's
    columns up to its total length (ORT leaves the columns past it unwritten; onnx-light
    writes 0 there, which is checked too)."""
    model, feeds, want = case(seqlens=seqlens, **kw)
    got, theirs = light_run(model, feeds), ort_run(model, feeds)
    ref = want[3] if kw["qk_output"] == 1 else want[4]
    assert got[3].shape == theirs[3].shape == ref.shape
    for b, s in enumerate(seqlens):
        t = s + 1
        np.testing.assert_allclose(got[3][b, ..., :t], ref[b, ..., :t], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got[3][b, ..., :t], theirs[3][b, ..., :t], rtol=1e-4, atol=1e-5)
        assert not got[3][b, ..., t:].any()
    for g, w, o in zip(got[:3], want, theirs):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g, o, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seq,past,seqlens,total", [(5, 0, [4, 4], 5), (1, 7, [7, 4], 8)])
def test_gqa_non_causal(seq, past, seqlens, total):
    check(batch=2, seq=seq, past=past, seqlens=seqlens, total=total, causal=0)
    check(batch=1, seq=3, past=6, seqlens=[8], total=9, causal=0, packed=True)


def test_gqa_non_causal_padded_prompt_sees_its_valid_keys():
    check(batch=2, seq=6, past=0, seqlens=[5, 2], total=6, valid_rows=[6, 3], causal=0)


@pytest.mark.parametrize("shape", [(1, 1), (2, 1), (1, N), (2, N)])
def test_gqa_attention_bias(shape):
    check(batch=2, seq=5, past=0, seqlens=[4, 4], total=5, bias=shape + (5, 5))
    check(batch=2, seq=1, past=7, seqlens=[7, 4], total=8, bias=shape + (1, 8))


def test_gqa_attention_bias_after_softcap_and_with_a_window():
    check(batch=2, seq=6, past=0, seqlens=[5, 5], total=6, bias=(1, N, 6, 6), softcap=1.5)
    check(batch=1, seq=3, past=6, seqlens=[8], total=9, bias=(1, 1, 3, 9), local_window_size=4)


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize(
    "attrs",
    [{}, dict(local_window_size=2), dict(softcap=1.0), dict(causal=0), dict(smooth_softmax=1)],
)
def test_gqa_qk_output(mode, attrs):
    check_qk(batch=1, seq=5, past=0, seqlens=[4], total=5, qk_output=mode, **attrs)
    check_qk(batch=2, seq=1, past=7, seqlens=[7, 4], total=8, qk_output=mode, **attrs)
    check_qk(batch=2, seq=5, past=0, seqlens=[4, 4], total=5, qk_output=mode, bias=(2, 1, 5, 5))


def retained(t, cap, window):
    """Tokens a window-sized cache holds after total length t (ORT's rule)."""
    return t if t <= cap else (window - 1) + (t - cap - 1) % (cap - window + 1) + 1


@pytest.mark.parametrize(
    "cap,window,steps",
    [
        (3, 3, [2] + [1] * 9),
        (4, 3, [2, 1, 1, 1, 1, 2, 1, 1]),
        (5, 3, [6, 2, 1, 1, 3, 1]),
        (4, 2, [1, 1, 1, 1, 1, 1, 2, 1, 1]),
        (6, 4, [9, 1, 4, 1, 1]),
    ],
)
def test_gqa_sliding_window_cache_over_a_generation_loop(cap, window, steps):
    """Each step's output equals windowed attention over the whole history (reference and
    ORT with a full cache), and the window-sized present caches hold what ORT's do: the
    last retained(t) tokens from row 0, zeros after (ORT leaves old rows there)."""
    total_len = sum(steps)
    rng = np.random.default_rng(cap * 10 + window)
    q_all = randn(rng, 1, total_len, N * HS)
    k_all, v_all = randn(rng, 1, total_len, KV * HS), randn(rng, 1, total_len, KV * HS)
    ins = [("q", F), ("k", F), ("v", F), ("pk", F), ("pv", F), ("seqlens", I32), ("total", I32)]
    outs = [("y", F), ("present_k", F), ("present_v", F)]
    attrs = dict(num_heads=N, kv_num_heads=KV, local_window_size=window)
    model = ms_model(OP, ins, outs, sliding_window_cache=1, **attrs)
    full = ms_model(OP, ins, outs, **attrs)
    light = onnx_light.RuntimeSession(model.SerializeToString())
    caches = {"light": np.zeros((1, KV, cap, HS), np.float32)}
    caches["ort"] = caches["light"].copy()
    vcaches = {name: c.copy() for name, c in caches.items()}
    full_k = np.zeros((1, KV, 0, HS), np.float32)
    full_v = full_k.copy()
    t = 0
    for s in steps:
        feeds = {
            "q": q_all[:, t : t + s],
            "k": k_all[:, t : t + s],
            "v": v_all[:, t : t + s],
            "seqlens": np.array([t + s - 1], np.int32),
            "total": np.array(t + s, np.int32),
        }
        y, caches["light"], vcaches["light"] = light.run(
            None, feeds | {"pk": caches["light"], "pv": vcaches["light"]}
        )
        yo, caches["ort"], vcaches["ort"] = ort_run(
            model, feeds | {"pk": caches["ort"], "pv": vcaches["ort"]}
        )
        y_full, full_k, full_v = ort_run(full, feeds | {"pk": full_k, "pv": full_v})
        want = reference(
            q_all[:, t : t + s],
            k_all[:, t : t + s],
            v_all[:, t : t + s],
            None if t == 0 else full_k[:, :, :t],
            None if t == 0 else full_v[:, :, :t],
            [t + s - 1],
            t + s,
            window=window,
        )[0]
        t += s
        keep = retained(t, cap, window)
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(y, yo, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(y, y_full, rtol=1e-4, atol=1e-5)
        for ours, theirs, whole in [
            (caches["light"], caches["ort"], full_k),
            (vcaches["light"], vcaches["ort"], full_v),
        ]:
            np.testing.assert_array_equal(ours[:, :, :keep], theirs[:, :, :keep])
            np.testing.assert_array_equal(ours[:, :, :keep], whole[:, :, t - keep : t])
            assert not ours[:, :, keep:].any()


def test_gqa_sliding_window_cache_batches_of_different_lengths():
    """A decode step of two batches whose histories differ (5 and 3 tokens, capacity 3):
    each batch's past holds its own retained rows."""
    for seqlens, total in [([5, 3], 6), ([2, 6], 7)]:
        model, feeds, _ = case(
            batch=2,
            seq=1,
            past=3,
            seqlens=seqlens,
            total=total,
            local_window_size=3,
            sliding_window_cache=1,
        )
        got, theirs = light_run(model, feeds), ort_run(model, feeds)
        np.testing.assert_allclose(got[0], theirs[0], rtol=1e-4, atol=1e-5)
        for b, s in enumerate(seqlens):
            keep = retained(s + 1, 3, 3)
            np.testing.assert_array_equal(got[1][b, :, :keep], theirs[1][b, :, :keep])
            np.testing.assert_array_equal(got[2][b, :, :keep], theirs[2][b, :, :keep])


@pytest.mark.parametrize(
    "attrs,past,match",
    [
        (dict(causal=0, local_window_size=2), 0, "local_window_size must be -1 when causal is 0"),
        (dict(causal=2), 0, "causal must be 0 or 1"),
        (dict(qk_output=3), 0, "qk_output must be 0, 1"),
        (dict(sliding_window_cache=1), 4, "requires local_window_size > 0"),
        (dict(sliding_window_cache=1, local_window_size=3), 0, "needs past_key and past_value"),
        (dict(sliding_window_cache=1, local_window_size=5), 4, "capacity 4 must be at least"),
        (
            dict(sliding_window_cache=1, local_window_size=3, qk_output=1),
            4,
            "qk_output is not supported with sliding_window_cache",
        ),
    ],
)
def test_gqa_refuses_bad_attribute_combinations(attrs, past, match):
    seq = 1 if past else 4
    model, feeds, _ = case(
        batch=1, seq=seq, past=past, seqlens=[past + seq - 1], total=past + seq, **attrs
    )
    with pytest.raises((ValueError, RuntimeError), match=match):
        light_run(model, feeds)
    # the process goes on: a good model still runs
    check(batch=1, seq=1, past=4, seqlens=[4], total=5)


@pytest.mark.parametrize("shape", [(1, 1, 5, 7), (1, 1, 1, 5), (3, 1, 5, 5), (1, 3, 5, 5)])
def test_gqa_refuses_an_attention_bias_of_the_wrong_shape(shape):
    model, feeds, _ = case(batch=2, seq=5, past=0, seqlens=[4, 4], total=5, bias=(1, 1, 5, 5))
    feeds["bias"] = np.zeros(shape, np.float32)
    with pytest.raises(ValueError, match="attention_bias .* must be float"):
        light_run(model, feeds)


@pytest.mark.parametrize("seq,seqlens,total", [(1, [5, 2], 6), (3, [8], 9)])
def test_gqa_caches_of_the_maximum_length(seq, seqlens, total):
    """onnxruntime-genai's shared past/present buffers: past and present [B, KV, max_length,
    H] with max_length (16) above the total length; the present keeps that length, each
    batch's rows past its total are 0."""
    check(batch=len(seqlens), seq=seq, past=16, seqlens=seqlens, total=total)
    model, feeds, _ = case(batch=len(seqlens), seq=seq, past=16, seqlens=seqlens, total=total)
    got = light_run(model, feeds)
    assert got[1].shape == got[2].shape == (len(seqlens), KV, 16, HS)
    for b, s in enumerate(seqlens):
        assert not got[1][b, :, s + 1 :].any() and not got[2][b, :, s + 1 :].any()
