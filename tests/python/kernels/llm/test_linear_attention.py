"""LinearAttention and CausalConvWithState (opset 27) against the ONNX reference
implementation (onnx.reference, an oracle only) on random inputs larger than the backend
data's, every update rule, GQA, per-feature decay, carried state; and their errors.
Tolerance: float32 rtol 1e-4, atol 1e-5 (float accumulation over 12 steps)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, node_bytes
from onnx.reference import ReferenceEvaluator

import onnx_light


def model(op, inputs, outs, **attrs):
    return node_bytes(op, inputs, [(o, F) for o in outs], 27, **attrs)


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
@pytest.mark.parametrize("per_feature_decay", [False, True])
def test_linear_attention_matches_the_reference(rule, per_feature_decay):
    rng = np.random.default_rng(26)
    b, t, hq, hk, dk, dv = 2, 12, 4, 2, 8, 6
    feeds = {
        "q": rng.standard_normal((b, t, hq * dk)).astype(np.float32),
        "k": rng.standard_normal((b, t, hk * dk)).astype(np.float32) * 0.3,
        "v": rng.standard_normal((b, t, hk * dv)).astype(np.float32),
        "s": rng.standard_normal((b, hk, dk, dv)).astype(np.float32) * 0.1,
    }
    inputs = [("q", F), ("k", F), ("v", F), ("s", F)]
    if rule in ("gated", "gated_delta"):
        feeds["d"] = -rng.uniform(0, 0.5, (b, t, hk * dk if per_feature_decay else hk)).astype(
            np.float32
        )
        inputs.append(("d", F))
    else:
        inputs.append(("", F))
    if rule in ("delta", "gated_delta"):
        feeds["be"] = rng.uniform(0, 1, (b, t, hk)).astype(np.float32)
        inputs.append(("be", F))
    data = model(
        "LinearAttention", inputs, ["y", "state"], update_rule=rule, q_num_heads=hq, kv_num_heads=hk
    )
    want = ReferenceEvaluator(data).run(None, feeds)
    got = onnx_light.RuntimeSession(data).run(None, feeds)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_linear_attention_errors():
    x = np.ones((1, 2, 4), np.float32)
    s = onnx_light.RuntimeSession(
        model(
            "LinearAttention",
            [("q", F), ("k", F), ("v", F)],
            ["y", "state"],
            update_rule="gated",
            q_num_heads=1,
            kv_num_heads=1,
        )
    )
    with pytest.raises(ValueError, match="needs decay"):
        s.run(None, {"q": x, "k": x, "v": x})
    bad = onnx_light.RuntimeSession(
        model(
            "LinearAttention",
            [("q", F), ("k", F), ("v", F)],
            ["y", "state"],
            update_rule="linear",
            q_num_heads=3,
            kv_num_heads=2,
        )
    )
    with pytest.raises(ValueError, match="positive multiple of kv_num_heads"):
        bad.run(None, {"q": x, "k": x, "v": x})


@pytest.mark.parametrize("activation", ["none", "silu"])
@pytest.mark.parametrize("with_state", [False, True])
def test_causal_conv_with_state_matches_numpy(activation, with_state):
    rng = np.random.default_rng(27)
    b, c, length, k = 2, 5, 9, 4
    x = rng.standard_normal((b, c, length)).astype(np.float32)
    w = rng.standard_normal((c, 1, k)).astype(np.float32)
    bias = rng.standard_normal(c).astype(np.float32)
    past = rng.standard_normal((b, c, k - 1)).astype(np.float32)
    inputs = [("x", F), ("w", F), ("b", F)] + ([("p", F)] if with_state else [])
    feeds = {"x": x, "w": w, "b": bias} | ({"p": past} if with_state else {})
    data = model("CausalConvWithState", inputs, ["y", "state"], activation=activation)
    y, state = onnx_light.RuntimeSession(data).run(None, feeds)
    padded = np.concatenate([past if with_state else np.zeros((b, c, k - 1), np.float32), x], 2)
    want = (
        np.stack(
            [
                sum(
                    w[:, 0, j][None, :, None] * padded[:, :, j : j + length][:, :] for j in range(k)
                )[:, ch]
                for ch in range(c)
            ],
            1,
        )
        + bias[None, :, None]
    )
    if activation == "silu":
        want = want / (1 + np.exp(-want))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(state, padded[:, :, -(k - 1) :])


def test_causal_conv_errors():
    s = onnx_light.RuntimeSession(
        model("CausalConvWithState", [("x", F), ("w", F)], ["y", "state"])
    )
    with pytest.raises(ValueError, match="weight \\[C, 1, K\\]"):
        s.run(None, {"x": np.ones((1, 2, 5), np.float32), "w": np.ones((3, 1, 2), np.float32)})
