"""Attention (opset 23/24) against ONNX Runtime on shapes larger than the backend data's
(the BLAS products and the per-head strides), and its errors. The backend node cases
(64 of them: masks, GQA, causal with a past cache, softcap, the QK output modes) are
checked by test_conformance.py. Tolerance: float32 rtol 1e-4, atol 1e-5 (softmax of
dot products over up to 96 keys). The float path without a mask computes blocks of 32 query
rows over the keys each block sees: prompts of several blocks are among the cases."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F

import onnx_light
from onnx_light.onnx import helper


def model(inputs, n_out=1, opset=23, **attrs):
    names = [n for n, _ in inputs]
    outs = ["y", "present_key", "present_value", "qk"][:n_out]
    node = helper.make_node("Attention", names, outs, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in inputs if n],
        [helper.make_tensor_value_info(o, F, None) for o in outs],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)]
    ).SerializeToString()


def ort_run(data, feeds):
    import onnxruntime as ort

    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)


CASES = [
    # (name, q shape, k shape, v shape, attrs, mask shape or None, past length, n_out)
    ("4d mha", (2, 4, 33, 16), (2, 4, 40, 16), (2, 4, 40, 24), {}, None, 0, 1),
    (
        "4d gqa causal past",
        (1, 8, 17, 32),
        (1, 2, 17, 32),
        (1, 2, 17, 32),
        {"is_causal": 1},
        None,
        23,
        3,
    ),
    # Blocks of 32 query rows, each over the keys it can see: causal prompts of several
    # blocks (the last partial), with and without a past cache, GQA, and a non-causal one.
    (
        "4d causal 100",
        (1, 3, 100, 16),
        (1, 3, 100, 16),
        (1, 3, 100, 16),
        {"is_causal": 1},
        None,
        0,
        1,
    ),
    (
        "4d gqa causal 70 past 9",
        (2, 4, 70, 32),
        (2, 2, 70, 32),
        (2, 2, 70, 24),
        {"is_causal": 1},
        None,
        9,
        3,
    ),
    ("4d mha 65", (1, 2, 65, 8), (1, 2, 80, 8), (1, 2, 80, 8), {"scale": 0.5}, None, 0, 1),
    (
        "3d gqa float mask",
        (2, 12, 8 * 16),
        (2, 30, 2 * 16),
        (2, 30, 2 * 8),
        {"q_num_heads": 8, "kv_num_heads": 2},
        (2, 1, 12, 30),
        0,
        1,
    ),
    (
        "4d bool mask scaled softcap",
        (1, 2, 9, 8),
        (1, 2, 96, 8),
        (1, 2, 96, 8),
        {"scale": 0.3, "softcap": 2.0},
        (9, 96),
        0,
        1,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_attention_matches_onnxruntime(case):
    _, qs, ks, vs, attrs, mask_shape, past, n_out = case
    rng = np.random.default_rng(3)
    feeds = {
        "q": rng.standard_normal(qs).astype(np.float32),
        "k": rng.standard_normal(ks).astype(np.float32),
        "v": rng.standard_normal(vs).astype(np.float32),
    }
    inputs = [("q", F), ("k", F), ("v", F)]
    if mask_shape is not None:
        if "softcap" in attrs:
            m = rng.random(mask_shape) > 0.3
            m[..., 0] = True  # no fully masked row
            feeds["m"] = m
            inputs.append(("m", B))
        else:
            feeds["m"] = rng.standard_normal(mask_shape).astype(np.float32)
            inputs.append(("m", F))
    elif past:
        inputs.append(("", F))
    if past:
        kvh = ks[1]
        feeds["pk"] = rng.standard_normal((ks[0], kvh, past, ks[3])).astype(np.float32)
        feeds["pv"] = rng.standard_normal((vs[0], kvh, past, vs[3])).astype(np.float32)
        inputs += [("pk", F), ("pv", F)]
    data = model(inputs, n_out=n_out, **attrs)
    want = ort_run(data, feeds)
    got = onnx_light.RuntimeSession(data).run(None, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def run(inputs, feeds, **attrs):
    return onnx_light.RuntimeSession(model(inputs, **attrs)).run(None, feeds)


def f32(*shape):
    return np.ones(shape, np.float32)


QKV = [("q", F), ("k", F), ("v", F)]


@pytest.mark.parametrize(
    "inputs, feeds, attrs, match",
    [
        (
            QKV,
            {"q": f32(1, 2, 3), "k": f32(1, 2, 3, 4), "v": f32(1, 2, 3, 4)},
            {},
            "must all be 3-D or all 4-D",
        ),
        (
            QKV,
            {"q": f32(1, 2, 8), "k": f32(1, 2, 8), "v": f32(1, 2, 8)},
            {},
            "needs the q_num_heads and kv_num_heads",
        ),
        (
            QKV,
            {"q": f32(1, 2, 9), "k": f32(1, 2, 8), "v": f32(1, 2, 8)},
            {"q_num_heads": 2, "kv_num_heads": 2},
            "not a multiple of its 2 heads",
        ),
        (
            QKV,
            {"q": f32(1, 3, 2, 4), "k": f32(1, 2, 2, 4), "v": f32(1, 2, 2, 4)},
            {},
            "multiple of kv heads",
        ),
        (
            QKV,
            {"q": f32(1, 2, 2, 4), "k": f32(1, 2, 2, 5), "v": f32(1, 2, 2, 4)},
            {},
            "head sizes differ",
        ),
        (
            QKV,
            {"q": f32(1, 2, 2, 4), "k": f32(1, 2, 3, 4), "v": f32(1, 2, 2, 4)},
            {},
            "same heads and sequence length",
        ),
        (
            QKV + [("m", F)],
            {"q": f32(1, 2, 2, 4), "k": f32(1, 2, 3, 4), "v": f32(1, 2, 3, 4), "m": f32(3, 4)},
            {},
            "does not broadcast",
        ),
        (
            QKV,
            {"q": f32(1, 2, 2, 4), "k": f32(1, 2, 2, 4), "v": f32(1, 2, 2, 4)},
            {"qk_matmul_output_mode": 4},
            "qk_matmul_output_mode",
        ),
    ],
)
def test_attention_errors_are_clear_and_the_process_stays_usable(inputs, feeds, attrs, match):
    with pytest.raises(ValueError, match=match):
        run(inputs, feeds, **attrs)
    ok = run(QKV, {"q": f32(1, 1, 2, 4), "k": f32(1, 1, 3, 4), "v": f32(1, 1, 3, 4)})[0]
    np.testing.assert_allclose(ok, np.ones((1, 1, 2, 4)), rtol=1e-6)


def test_past_without_present_value_is_refused():
    inputs = QKV + [("", F), ("pk", F)]
    feeds = {
        "q": f32(1, 1, 2, 4),
        "k": f32(1, 1, 2, 4),
        "v": f32(1, 1, 2, 4),
        "pk": f32(1, 1, 1, 4),
    }
    with pytest.raises(ValueError, match="past_key and past_value come together"):
        run(inputs, feeds)
