"""com.microsoft EmbedLayerNormalization
(src/onnx_light/kernels/com_microsoft/embed_layer_normalization.cc): BERT's fused embedding
layer with and without segments, mask, position_ids and the embedding_sum output, odd
lengths, against a float64 reference and ONNX Runtime; ids outside their tables refused."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F
from _ms import check_vs_ort, light_run, ms_model, randn

VOCAB, POS, SEGS, HID = 30, 16, 2, 12
OP = "EmbedLayerNormalization"


def build(b, s, segments=True, mask=False, pos_ids=None, emb_sum=False, seed=50):
    rng = np.random.default_rng(seed)
    word, pos, seg = randn(rng, VOCAB, HID), randn(rng, POS, HID), randn(rng, SEGS, HID)
    gamma, beta = randn(rng, HID), randn(rng, HID)
    ids = rng.integers(0, VOCAB, (b, s)).astype(np.int32)
    feeds = {"ids": ids}
    inits = {"word": word, "pos": pos, "gamma": gamma, "beta": beta}
    ins = [("ids", I32)]
    total = word[ids].astype(np.float64)
    if segments:
        sids = rng.integers(0, SEGS, (b, s)).astype(np.int32)
        feeds["sids"] = sids
        inits["seg"] = seg
        ins.append(("sids", I32))
        total += seg[sids]
    else:
        ins.append(("", I32))
    ins += [("word", None), ("pos", None), ("seg" if segments else "", None)]
    ins += [("gamma", None), ("beta", None)]
    m = None
    if mask:
        m = (rng.random((b, s)) < 0.7).astype(np.int32)
        feeds["mask"] = m
    ins.append(("mask" if mask else "", I32))
    if pos_ids is not None:
        feeds["pids"] = pos_ids
        ins.append(("pids", I32))
        positions = np.broadcast_to(pos_ids, (b, s))
    else:
        positions = np.broadcast_to(np.arange(s), (b, s))
    total += np.take(pos, positions, axis=0, mode="clip")  # clip: for the refusal test
    mean = total.mean(-1, keepdims=True)
    var = ((total - mean) ** 2).mean(-1, keepdims=True)
    y = (total - mean) / np.sqrt(var + 1e-12) * gamma + beta
    mask_index = m.sum(1).astype(np.int32) if mask else np.zeros(b, np.int32)
    outs = [("y", F), ("mask_index", I32)] + ([("sum", F)] if emb_sum else [])
    want = [y, mask_index] + ([total] if emb_sum else [])
    return ins, outs, inits, feeds, want


def check(**kw):
    ins, outs, inits, feeds, want = build(**kw)
    model = ms_model(OP, ins, outs, inits, epsilon=1e-12)
    got = check_vs_ort(model, feeds, rtol=1e-5, atol=2e-5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("b,s", [(1, 1), (2, 7), (3, 16)])
@pytest.mark.parametrize("segments", [True, False])
def test_embed_layer_norm_shapes_with_and_without_segments(b, s, segments):
    check(b=b, s=s, segments=segments)


@pytest.mark.parametrize("b,s", [(2, 5), (1, 9)])
def test_embed_layer_norm_mask_index_counts_the_mask(b, s):
    check(b=b, s=s, mask=True)


def test_embed_layer_norm_position_ids_and_embedding_sum():
    check(b=2, s=5, pos_ids=np.array([[3, 1, 4, 1, 5]], np.int32), emb_sum=True)
    check(b=2, s=3, pos_ids=np.array([[0, 2, 4], [6, 8, 10]], np.int32), emb_sum=True)


@pytest.mark.parametrize("which,value", [("ids", VOCAB), ("ids", -1), ("sids", SEGS)])
def test_embed_layer_norm_refuses_ids_outside_the_tables(which, value):
    ins, outs, inits, feeds, _ = build(b=1, s=4)
    feeds[which][0, 2] = value
    with pytest.raises(ValueError, match=f"EmbedLayerNormalization.*{value}"):
        light_run(ms_model(OP, ins, outs, inits), feeds)


def test_embed_layer_norm_refuses_a_position_past_the_table():
    ins, outs, inits, feeds, _ = build(b=1, s=POS + 1, segments=False)
    with pytest.raises(ValueError, match="EmbedLayerNormalization.*position"):
        light_run(ms_model(OP, ins, outs, inits), feeds)
