"""com.microsoft Attention (src/onnx_light/kernels/com_microsoft/attention.cc): the packed
Q/K/V projection and attention of ORT's BERT and GPT-2 fusions, against a float64 reference
and ONNX Runtime, for every mask format, past state (empty and not), unidirectional,
attention_bias, qkv_hidden_sizes and odd sequence lengths; unsupported forms refused."""

from __future__ import annotations

import numpy as np
import pytest
from _attention_ref import heads, key_mask_bias, merge, sdpa
from _graphs import I32, F
from _ms import check_vs_ort, light_run, ms_model, randn

B, N, H = 2, 3, 8
D = N * H


def attention(x, w, bias, n, sizes, mask=None, past=None, causal=False, extra=None, scale=None):
    dq, dk, dv = sizes
    qkv = x.astype(np.float64) @ w + (0 if bias is None else bias)
    q, k, v = (
        heads(qkv[..., :dq], n),
        heads(qkv[..., dq : dq + dk], n),
        heads(qkv[..., dq + dk :], n),
    )
    if past is not None:
        k, v = np.concatenate([past[0], k], 2), np.concatenate([past[1], v], 2)
    b, s, t = x.shape[0], x.shape[1], k.shape[2]
    total_bias = key_mask_bias(mask, b, s, t)
    if causal:
        p = t - s
        total_bias = total_bias + np.triu(np.full((s, t), -3.4e38), p + 1)
    if extra is not None:
        total_bias = total_bias + extra
    out = sdpa(q, k, v, scale or 1 / np.sqrt(dq // n), total_bias)
    return merge(out), (np.stack([k, v]) if past is not None else None)


def run(
    seq, mask=None, past_len=None, causal=0, extra=False, sizes=(D, D, D), scale=None, tol=1e-5
):
    rng = np.random.default_rng(30)
    x, w, bias = (
        randn(rng, B, seq, 16),
        randn(rng, 16, sum(sizes), scale=0.5),
        randn(rng, sum(sizes)),
    )
    ins = [("x", F), ("w", F), ("bias", F), ("mask" if mask is not None else "", I32)]
    feeds = {"x": x, "w": w, "bias": bias} | ({"mask": mask} if mask is not None else {})
    outs = [("y", F)]
    past = None
    if past_len is not None:
        past = randn(rng, 2, B, N, past_len, H)
        ins.append(("past", F))
        feeds["past"] = past
        outs.append(("present", F))
    t = seq + (past_len or 0)
    ex = None
    if extra:
        ex = randn(rng, 1, N, seq, t)
        ins += [("", F)] if past_len is None else []
        ins.append(("extra", F))
        feeds["extra"] = ex
    attrs = dict(num_heads=N, unidirectional=causal)
    if sizes[2] != sizes[0]:
        attrs["qkv_hidden_sizes"] = list(sizes)
    if scale:
        attrs["scale"] = scale
    got = check_vs_ort(ms_model("Attention", ins, outs, **attrs), feeds, rtol=1e-4, atol=tol)
    y, present = attention(x, w, bias, N, sizes, mask, past, causal, ex, scale)
    np.testing.assert_allclose(got[0], y, rtol=1e-4, atol=tol)
    if past_len is not None:
        np.testing.assert_allclose(got[1], present, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seq", [1, 5, 16])
def test_attention_without_mask(seq):
    run(seq)


@pytest.mark.parametrize("kind", ["lengths", "ends_and_starts", "raw2d", "raw3d", "zero_length"])
def test_attention_masks(kind):
    seq = 7
    if kind == "lengths":
        mask = np.array([7, 4], np.int32)
    elif kind == "zero_length":
        mask = np.array([0, 3], np.int32)
    elif kind == "ends_and_starts":
        mask = np.array([7, 5, 0, 2], np.int32)
    elif kind == "raw2d":
        mask = np.array([[1, 1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1, 1]], np.int32)
    else:
        mask = np.random.default_rng(31).integers(0, 2, (B, seq, seq)).astype(np.int32)
    # A batch with every key masked (length 0) has scores ~ -10000 where a float's step is
    # 1e-3: its softmax is float noise (in ORT as here), so its tolerance is that noise.
    run(seq, mask=mask, tol=5e-3 if kind == "zero_length" else 1e-5)


@pytest.mark.parametrize("past_len", [0, 1, 6])
@pytest.mark.parametrize("seq", [1, 3])
def test_attention_with_past_gpt2_style(past_len, seq):
    run(seq, past_len=past_len, causal=1)


def test_attention_with_past_and_raw_mask_over_the_total_length():
    mask = np.array([[1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]], np.int32)
    run(2, mask=mask, past_len=4, causal=1)


def test_attention_unidirectional_bias_and_scale():
    run(6, causal=1, extra=True, scale=0.3)


def test_attention_qkv_hidden_sizes():
    run(5, sizes=(D, D, 2 * D))


@pytest.mark.parametrize(
    "attrs,message",
    [
        (dict(num_heads=N, do_rotary=1), "do_rotary is not supported"),
        (dict(num_heads=N, past_present_share_buffer=1), "past_present_share_buffer"),
        (dict(num_heads=0), "num_heads must be positive"),
    ],
)
def test_attention_refuses_unsupported_attributes(attrs, message):
    m = ms_model("Attention", [("x", F), ("w", F)], [("y", F)], **attrs)
    with pytest.raises((ValueError, RuntimeError), match=message):
        light_run(m, {"x": np.ones((1, 2, 4), np.float32), "w": np.ones((4, 3 * D), np.float32)})


@pytest.mark.parametrize(
    "x,w,mask,message",
    [
        ((1, 2, 4), (5, 3 * D), None, "weights .* must be"),
        ((1, 2, 4), (4, 3 * D + 1), None, "do not split"),
        ((2, 3, 4), (4, 3 * D), (3,), r"mask \[3\] must be"),
        ((2, 3, 4), (4, 3 * D), (2, 1, 3, 3), "Megatron mask is not supported"),
        ((2, 3), (4, 3 * D), None, "must be \\[batch, sequence, hidden\\]"),
    ],
)
def test_attention_refuses_bad_shapes(x, w, mask, message):
    ins = [("x", F), ("w", F), ("", F)] + ([("mask", I32)] if mask else [])
    m = ms_model("Attention", ins, [("y", F)], num_heads=N)
    feeds = {"x": np.ones(x, np.float32), "w": np.ones(w, np.float32)}
    if mask:
        feeds["mask"] = np.ones(mask, np.int32)
    with pytest.raises(ValueError, match=f"Attention, domain com.microsoft.*{message}"):
        light_run(m, feeds)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("level", ["all", "none"])
def test_constant_projection_weights_packed_once(level, threads):
    # Weights [128, 384] as an initializer: packed once per session (prepack_matmul_weights,
    # the kernel's packed product) at the default level; read as they are at level "none".
    rng = np.random.default_rng(31)
    n, h = 4, 32
    x = randn(rng, 2, 9, 128)
    w = randn(rng, 128, 3 * n * h, scale=0.1)
    bias = randn(rng, 3 * n * h)
    model = ms_model(
        "Attention",
        [("x", F), ("w", None), ("bias", None)],
        [("y", F)],
        initializers={"w": w, "bias": bias},
        num_heads=n,
    )
    import onnx_light

    (got,) = onnx_light.RuntimeSession(
        model.SerializeToString(), intra_op_threads=threads, graph_optimization_level=level
    ).run(None, {"x": x})
    want, _ = attention(x, w, bias, n, (n * h, n * h, n * h))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
