"""ONNX Runtime's transformer optimizer on model types past BERT (test_ort_tools.py has
BERT): a ViT image encoder ("vit"), a CLIP text encoder ("clip") and a T5 encoder stack
("t5"), built as PyTorch exports write them (tests/python/_encoder_graphs.py). Each test
checks which fused ops the optimizer wrote (so the fused path really runs) and that
onnx-light on the fused model matches ORT on the original and on the fused model, for
several shapes, at one and two threads. Tolerance: float32, rtol 1e-4, atol 1e-4 (the
fused kernels sum in another order than the unfused graph)."""

from __future__ import annotations

import collections

import numpy as np
import onnxruntime as ort
import pytest
from _encoder_graphs import causal_mask, clip_text_encoder, t5_encoder, vit_encoder

import onnx_light
from onnx_light.onnx import load_model

BUILDERS = {"vit": vit_encoder, "clip": clip_text_encoder, "t5": t5_encoder}
# What the optimizer writes for each, by (domain, op): the whole attention/norm/activation
# family of each model type.
FUSED = {
    "vit": {
        ("com.microsoft", "Attention"): 2,
        ("com.microsoft", "SkipLayerNormalization"): 4,
        ("com.microsoft", "BiasGelu"): 2,
    },
    "clip": {
        ("com.microsoft", "Attention"): 2,
        ("com.microsoft", "SkipLayerNormalization"): 4,
        ("com.microsoft", "QuickGelu"): 2,
    },
    "t5": {
        ("ai.onnx", "SimplifiedLayerNormalization"): 1,
        ("com.microsoft", "SkipSimplifiedLayerNormalization"): 4,
    },
}

GONE = {
    "vit": ("Softmax", "Erf"),
    "clip": ("Softmax", "Sigmoid"),
    "t5": ("Pow", "ReduceMean", "Reciprocal"),
}


@pytest.fixture(scope="module")
def optimized(tmp_path_factory):
    """model type -> (original path, fused path)."""
    from onnxruntime.transformers import optimizer

    d = tmp_path_factory.mktemp("optimizer")
    out = {}
    for kind, build in BUILDERS.items():
        src = d / f"{kind}.onnx"
        src.write_bytes(build().SerializeToString())
        fused = optimizer.optimize_model(
            str(src), model_type=kind, num_heads=4, hidden_size=32, opt_level=0
        )
        dst = d / f"{kind}_fused.onnx"
        fused.save_model_to_file(str(dst))
        out[kind] = (src, dst)
    return out


def feeds_for(kind, batch, seq, pad=0, seed=3):
    rng = np.random.default_rng(seed)
    if kind == "vit":
        return {"pixel_values": rng.standard_normal((batch, 3, 16, 16)).astype(np.float32)}
    ids = rng.integers(0, 100, (batch, seq)).astype(np.int64)
    if kind == "clip":
        return {"input_ids": ids, "attention_mask": causal_mask(batch, seq, pad)}
    bias = rng.standard_normal((1, 4, seq, seq)).astype(np.float32)
    return {"input_ids": ids, "position_bias": bias}


def ort_run(path, feeds):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_the_optimizer_fuses_each_model_type(optimized, kind):
    model = load_model(str(optimized[kind][1]))
    ops = collections.Counter((n.domain or "ai.onnx", n.op_type) for n in model.graph.node)
    fused = {k: v for k, v in ops.items() if k in FUSED[kind]}
    assert fused == FUSED[kind], ops
    # Nothing of the fused families is left unfused.
    for op in GONE[kind]:
        assert ("ai.onnx", op) not in ops, (op, ops)


CASES = [
    ("vit", 1, 0, 0, 1),
    ("vit", 3, 0, 0, 2),
    ("clip", 1, 1, 0, 1),
    ("clip", 2, 7, 2, 1),
    ("clip", 3, 16, 5, 2),
    ("t5", 1, 1, 0, 1),
    ("t5", 2, 9, 0, 1),
    ("t5", 3, 17, 0, 2),
]


@pytest.mark.parametrize("kind,batch,seq,pad,threads", CASES)
def test_fused_models_match_ort(optimized, kind, batch, seq, pad, threads):
    src, fused = optimized[kind]
    feeds = feeds_for(kind, batch, seq, pad)
    want = ort_run(src, feeds)[0]
    want_fused = ort_run(fused, feeds)[0]
    session = onnx_light.RuntimeSession(fused.read_bytes(), intra_op_threads=threads)
    got = session.run(None, feeds)[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, want_fused, rtol=1e-4, atol=1e-4)
    # The unfused original too (the same numbers by another route).
    plain = onnx_light.RuntimeSession(src.read_bytes()).run(None, feeds)[0]
    np.testing.assert_allclose(plain, want, rtol=1e-4, atol=1e-4)
