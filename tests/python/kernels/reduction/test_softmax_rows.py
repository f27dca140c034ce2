"""float32 Softmax along the last axis (attention scores): rows split across threads,
the row maximum from running maxima; against numpy in float64 (rtol 3e-6: exp within one
ULP, and a float sum of up to 1000 terms in vector partial sums, whose rounding depends on
the vector width: 1.1e-6 seen with SSE4's four lanes), with -inf entries (masked), a NaN row passing NaN through, and rows
shorter and longer than a vector."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 12, 128, 128), (3, 7), (2, 1000), (4, 5, 17)])
def test_softmax_rows_match_numpy(shape, threads):
    rng = np.random.default_rng(shape[-1])
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    flat[0, : shape[-1] // 2] = -np.inf  # a masked half row
    F = TensorProto.FLOAT
    model = node_model("Softmax", [("x", F)], [("y", F)], opset=13, axis=-1)
    s = onnx_light.RuntimeSession(model, intra_op_threads=threads)
    got = s.run(None, {"x": x})[0]
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=-1, keepdims=True), rtol=3e-6, atol=1e-12)
    bad = x.copy()
    bad.reshape(-1, shape[-1])[-1, 0] = np.nan
    got = s.run(None, {"x": bad})[0].reshape(-1, shape[-1])
    assert np.isnan(got[-1]).all()
