"""com.microsoft FusedGemm (src/onnx_light/kernels/com_microsoft/fused_gemm.cc): Gemm and
each of ORT's activations with its activation_* attributes, against float64 formulas and
ONNX Runtime; a missing activation parameter and an unknown activation refused."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F
from _ms import check_vs_ort, light_run, ms_model, randn

SELU = dict(activation_alpha=1.6732632, activation_gamma=1.050701)
ACTS = [
    ("Relu", {}, lambda x: np.maximum(x, 0)),
    ("Sigmoid", {}, lambda x: 1 / (1 + np.exp(-x))),
    ("Tanh", {}, np.tanh),
    ("LeakyRelu", dict(activation_alpha=0.1), lambda x: np.where(x < 0, 0.1 * x, x)),
    (
        "HardSigmoid",
        dict(activation_alpha=0.2, activation_beta=0.5),
        lambda x: np.clip(0.2 * x + 0.5, 0, 1),
    ),
    ("Elu", dict(activation_alpha=0.7), lambda x: np.where(x >= 0, x, 0.7 * np.expm1(x))),
    ("Selu", SELU, lambda x: 1.050701 * np.where(x > 0, x, 1.6732632 * np.expm1(x))),
    (
        "Celu",
        dict(activation_alpha=1.5),
        lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(x / 1.5)),
    ),
    ("ThresholdedRelu", dict(activation_alpha=0.5), lambda x: np.where(x > 0.5, x, 0)),
    ("Softsign", {}, lambda x: x / (1 + np.abs(x))),
    ("Softplus", {}, lambda x: np.logaddexp(0, x)),
    (
        "ParametricSoftplus",
        dict(activation_alpha=2.0, activation_beta=0.5),
        lambda x: 2 * np.logaddexp(0, 0.5 * x),
    ),
    (
        "ScaledTanh",
        dict(activation_alpha=1.5, activation_beta=0.5),
        lambda x: 1.5 * np.tanh(0.5 * x),
    ),
]


@pytest.mark.parametrize("act,params,fn", ACTS, ids=[a[0] for a in ACTS])
@pytest.mark.parametrize("ta,tb,c_shape", [(0, 0, (6,)), (1, 1, (5, 6)), (0, 1, None)])
def test_fused_gemm_activations_match_the_formula_and_ort(act, params, fn, ta, tb, c_shape):
    rng = np.random.default_rng(23)
    a = randn(rng, *((7, 5) if ta else (5, 7)))
    b = randn(rng, *((6, 7) if tb else (7, 6)))
    ins = [("a", F), ("b", F)] + ([("c", F)] if c_shape else [])
    feeds = {"a": a, "b": b} | ({"c": randn(rng, *c_shape)} if c_shape else {})
    attrs = dict(alpha=0.5, beta=2.0, transA=ta, transB=tb, activation=act, **params)
    (y,) = check_vs_ort(ms_model("FusedGemm", ins, [("y", F)], **attrs), feeds, 1e-5, 1e-5)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    v = 0.5 * (a64.T if ta else a64) @ (b64.T if tb else b64)
    if c_shape:
        v = v + 2.0 * feeds["c"]
    np.testing.assert_allclose(y, fn(v), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "attrs,message",
    [
        (dict(activation="LeakyRelu"), "activation LeakyRelu needs attribute activation_alpha"),
        (dict(activation="HardSigmoid", activation_alpha=0.2), "needs attribute activation_beta"),
        (dict(activation="Gelu"), "unknown activation 'Gelu'"),
        (dict(activation="Celu", activation_alpha=0.0), "nonzero activation_alpha"),
    ],
)
def test_fused_gemm_refuses_incomplete_activations(attrs, message):
    m = ms_model("FusedGemm", [("a", F), ("b", F)], [("y", F)], **attrs)
    with pytest.raises(ValueError, match=message):
        light_run(m, {"a": np.ones((2, 2), np.float32), "b": np.ones((2, 2), np.float32)})


def test_fused_gemm_without_activation_is_refused_like_ort():
    m = ms_model("FusedGemm", [("a", F), ("b", F)], [("y", F)])
    with pytest.raises(ValueError, match="unknown activation ''"):
        light_run(m, {"a": np.ones((2, 2), np.float32), "b": np.ones((2, 2), np.float32)})
