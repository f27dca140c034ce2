"""com.microsoft RotaryEmbedding (src/onnx_light/kernels/com_microsoft/rotary_embedding.cc):
[B, S, N * H] and [B, N, S, H] inputs, interleaved or halves, a partial rotary width,
position_ids per token or as one start position, float32 and float16; against a float64
reference and ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, H, I
from _ms import check_vs_ort, light_run, ms_model, randn

B, S, N, HS, MAXPOS = 2, 5, 3, 8, 32


def caches(rot):
    pos = np.arange(MAXPOS)[:, None]
    freq = 1.0 / (10000 ** (np.arange(rot // 2) * 2 / rot))
    return np.cos(pos * freq).astype(np.float32), np.sin(pos * freq).astype(np.float32)


def reference(x, positions, cos, sin, rot, interleaved, bnsh):
    """x as [B, S, N, H] in float64, rotated per (b, s)."""
    v = x.astype(np.float64)
    v = v.transpose(0, 2, 1, 3) if bnsh else v.reshape(B, S, N, HS)
    out = v.copy()
    c = cos.astype(np.float64)[positions][:, :, None, :]
    s_ = sin.astype(np.float64)[positions][:, :, None, :]
    if interleaved:
        x1, x2 = v[..., 0:rot:2], v[..., 1:rot:2]
        out[..., 0:rot:2] = x1 * c - x2 * s_
        out[..., 1:rot:2] = x1 * s_ + x2 * c
    else:
        half = rot // 2
        x1, x2 = v[..., :half], v[..., half:rot]
        out[..., :half] = x1 * c - x2 * s_
        out[..., half:rot] = x1 * s_ + x2 * c
    return out.transpose(0, 2, 1, 3) if bnsh else out.reshape(B, S, N * HS)


@pytest.mark.parametrize("bnsh", [False, True])
@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rot", [HS, 4])
@pytest.mark.parametrize("start", [None, 0, 7])
def test_rotary_embedding_matches_the_reference_and_ort(bnsh, interleaved, rot, start):
    rng = np.random.default_rng(80)
    x = randn(rng, *((B, N, S, HS) if bnsh else (B, S, N * HS)))
    cos, sin = caches(rot)
    if start is None:
        pids = rng.integers(0, MAXPOS, (B, S)).astype(np.int64)
        positions = pids
    else:
        pids = np.array([start], np.int64)
        positions = np.broadcast_to(start + np.arange(S), (B, S))
    attrs = dict(interleaved=interleaved, num_heads=N)
    if rot != HS:
        attrs["rotary_embedding_dim"] = rot
    m = ms_model(
        "RotaryEmbedding",
        [("x", F), ("p", I), ("cos", None), ("sin", None)],
        [("y", F)],
        {"cos": cos, "sin": sin},
        **attrs,
    )
    (y,) = check_vs_ort(m, {"x": x, "p": pids}, rtol=1e-5, atol=1e-6)
    want = reference(x, positions, cos, sin, rot, interleaved, bnsh)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_rotary_embedding_float16():
    rng = np.random.default_rng(81)
    x = randn(rng, B, S, N * HS).astype(np.float16)
    cos, sin = caches(HS)
    m = ms_model(
        "RotaryEmbedding",
        [("x", H), ("p", I), ("cos", None), ("sin", None)],
        [("y", H)],
        {"cos": cos.astype(np.float16), "sin": sin.astype(np.float16)},
        num_heads=N,
    )
    pids = np.array([3], np.int64)
    check_vs_ort(m, {"x": x, "p": pids}, rtol=2e-3, atol=2e-3)


def test_rotary_embedding_refuses_positions_outside_the_cache():
    cos, sin = caches(HS)
    m = ms_model(
        "RotaryEmbedding",
        [("x", F), ("p", I), ("cos", None), ("sin", None)],
        [("y", F)],
        {"cos": cos, "sin": sin},
        num_heads=N,
    )
    feeds = {"x": np.zeros((B, S, N * HS), np.float32), "p": np.array([MAXPOS - 2], np.int64)}
    with pytest.raises(ValueError, match="RotaryEmbedding.*position id 32 is outside"):
        light_run(m, feeds)
