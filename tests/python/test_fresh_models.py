"""The fresh real-model set (tests/python/_fresh_models.py: recurrent nets, GNNs, tf2onnx,
Paddle and PyTorch exports from public PyPI packages, fetched by scripts/setup.sh) through
onnx-light against ONNX Runtime on the same inputs, at 1 and 2 intra-op threads.

Tolerance: each model's own (1e-5 of max(1, largest |output|) for the convolutional and
transformer models; 2e-3 for IS-Net in float16, whose Casts round to 16 bits where the model
says (both runtimes compute between them in float32, in their own summation orders); 1e-4
for its dynamically quantized form (the same integer codes: Resize is ORT's bit for bit); 1e-4 for recurrent nets, whose states run through 300-1000 steps of
sigmoid/tanh where the two runtimes' float32 rounding differs by an ulp a step, and for the
GNNs, whose scatter sums add in another order); float16 outputs within 2e-3 (their own
rounding step); integer and bool outputs exactly."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from _fresh_models import FRESH
from _models import model_path

import onnx_light


@pytest.fixture(scope="module")
def reference():
    """One ORT session and its outputs per model, shared by both thread counts."""
    cache = {}

    def get(name):
        if name not in cache:
            file, feeds_fn, _, _ = FRESH[name]
            so = ort.SessionOptions()
            so.intra_op_num_threads = 1
            so.log_severity_level = 3
            path = str(model_path(file))
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            feeds = feeds_fn(np.random.default_rng(11))
            names = [o.name for o in sess.get_outputs()]
            cache[name] = (path, feeds, sess.run(None, feeds), names)
        return cache[name]

    return get


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", list(FRESH))
def test_fresh_model_matches_onnxruntime(name, threads, reference):
    path, feeds, want, names = reference(name)
    tol = FRESH[name][3]
    light = onnx_light.RuntimeSession(path, intra_op_threads=threads)
    got = light.run(None, feeds)
    assert [o.name for o in light.get_outputs()] == names
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w)
            continue
        assert np.isfinite(w).all(), "the reference has NaN or inf: the feeds are off"
        magnitude = max(1.0, float(np.max(np.abs(w))))
        limit = (2e-3 if w.dtype == np.float16 else tol) * magnitude
        worst = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
        print(
            f"{name} @{threads}: largest |onnx-light - ORT| = {worst:.3g} (|output| {magnitude:.3g})"
        )
        assert worst <= limit, (worst, limit)
