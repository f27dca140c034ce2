"""com.microsoft QEmbedLayerNormalization
(src/onnx_light/kernels/com_microsoft/qembed_layer_normalization.cc): 8-bit embedding
tables (uint8 and int8), with and without segments and mask; against the dequantized tables
run through a float64 layer norm, and against ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F
from _ms import light_run, ms_model, ort_run
from _qops import F32, codes, elem

VOCAB, POS, SEGS, HID = 20, 12, 2, 16


def case(dtype, b, s, segments=True, mask=False):
    rng = np.random.default_rng(98)
    tables = {
        "word": (VOCAB, HID),
        "pos": (POS, HID),
        "seg": (SEGS, HID),
        "gamma": (HID,),
        "beta": (HID,),
    }
    inits, deq = {}, {}
    for i, (name, shape) in enumerate(tables.items()):
        q = codes(rng, dtype, *shape)
        scale, zp = F32(0.01 * (i + 1)), np.array(3 + i, dtype)
        inits[name], inits[name + "_s"], inits[name + "_z"] = q, np.array(scale, F32), zp
        deq[name] = (q.astype(np.float64) - int(zp)) * float(scale)
    ids = rng.integers(0, VOCAB, (b, s)).astype(np.int32)
    feeds = {"ids": ids}
    ins = [
        ("ids", I32),
        ("sids" if segments else "", I32),
        ("word", None),
        ("pos", None),
        ("seg" if segments else "", None),
        ("gamma", None),
        ("beta", None),
        ("mask" if mask else "", I32),
        ("word_s", None),
        ("pos_s", None),
        ("seg_s" if segments else "", None),
        ("gamma_s", None),
        ("beta_s", None),
        ("word_z", None),
        ("pos_z", None),
        ("seg_z" if segments else "", None),
        ("gamma_z", None),
        ("beta_z", None),
    ]
    if not segments:
        for k in ("seg", "seg_s", "seg_z"):
            del inits[k]
    total = deq["word"][ids] + deq["pos"][np.arange(s)][None]
    if segments:
        feeds["sids"] = rng.integers(0, SEGS, (b, s)).astype(np.int32)
        total = total + deq["seg"][feeds["sids"]]
    m = None
    if mask:
        m = (rng.random((b, s)) < 0.7).astype(np.int32)
        feeds["mask"] = m
    mu = total.mean(-1, keepdims=True)
    var = ((total - mu) ** 2).mean(-1, keepdims=True)
    y = (total - mu) / np.sqrt(var + 1e-12) * deq["gamma"] + deq["beta"]
    mi = m.sum(1).astype(np.int32) if mask else np.zeros(b, np.int32)
    model = ms_model("QEmbedLayerNormalization", ins, [("y", F), ("mi", I32)], inits, epsilon=1e-12)
    return model, feeds, [y, mi]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("segments", [True, False])
@pytest.mark.parametrize("b,s,mask", [(1, 1, False), (2, 7, True), (3, 12, False)])
def test_qembed_layer_norm(dtype, segments, b, s, mask):
    model, feeds, want = case(dtype, b, s, segments, mask)
    got = light_run(model, feeds)
    theirs = ort_run(model, feeds)
    for g, w, o in zip(got, want, theirs):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g, o, rtol=1e-5, atol=1e-5)


def test_qembed_layer_norm_tokens_split_between_threads(monkeypatch):
    # 128 tokens of 256 values: split between the threads (RuntimeSession's default, every
    # core); each row's sums in order as before, so ORT's values.
    import sys

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "POS", 64)
    monkeypatch.setattr(module, "HID", 256)
    model, feeds, want = case(np.uint8, 2, 64, True, True)
    got = light_run(model, feeds)
    for g, w, o in zip(got, want, ort_run(model, feeds)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g, o, rtol=1e-5, atol=1e-5)


def test_qembed_layer_norm_refuses_ids_outside_the_table():
    model, feeds, _ = case(np.uint8, 1, 3)
    feeds["ids"][0, 1] = VOCAB
    with pytest.raises(ValueError, match="QEmbedLayerNormalization.*input_ids 20 is outside"):
        light_run(model, feeds)
