"""RotaryEmbedding (src/onnx_light/kernels/llm/rotary_embedding.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_one


def rope_reference(x, cos, sin, pos, interleaved, dim, heads):
    x4 = x.reshape(x.shape[0], x.shape[1], heads, -1) if x.ndim == 3 else x.transpose(0, 2, 1, 3)
    if pos is not None:
        cos, sin = cos[pos], sin[pos]
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    rot, rest = x4[..., :dim], x4[..., dim:]
    if interleaved:
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
    else:
        x1, x2 = np.split(rot, 2, axis=-1)
    real, imag = cos * x1 - sin * x2, sin * x1 + cos * x2
    if interleaved:
        rot = np.stack([real, imag], axis=-1).reshape(rot.shape)
    else:
        rot = np.concatenate([real, imag], axis=-1)
    out = np.concatenate([rot, rest], axis=-1)
    return out.reshape(x.shape) if x.ndim == 3 else out.transpose(0, 2, 1, 3)


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("layout", ["3d", "4d"])
@pytest.mark.parametrize("with_pos", [True, False])
def test_rotary_embedding_partial_dim(interleaved, layout, with_pos):
    rng = np.random.default_rng(6)
    b, s, h, hs, dim = 2, 5, 3, 8, 6
    x = rng.standard_normal((b, s, h * hs) if layout == "3d" else (b, h, s, hs)).astype(np.float32)
    if with_pos:
        cos = rng.standard_normal((11, dim // 2)).astype(np.float32)
        sin = rng.standard_normal((11, dim // 2)).astype(np.float32)
        pos = rng.integers(0, 11, (b, s))
    else:
        cos = rng.standard_normal((b, s, dim // 2)).astype(np.float32)
        sin = rng.standard_normal((b, s, dim // 2)).astype(np.float32)
        pos = None
    inputs = [("x", F), ("c", F), ("s", F)] + ([("p", I)] if with_pos else [])
    feeds = {"x": x, "c": cos, "s": sin} | ({"p": pos} if with_pos else {})
    attrs = {"interleaved": interleaved, "rotary_embedding_dim": dim}
    if layout == "3d":
        attrs["num_heads"] = h
    (y,) = run_one("RotaryEmbedding", inputs, feeds, **attrs, opset=23)
    want = rope_reference(x, cos, sin, pos, interleaved, dim, h)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["3d", "4d"])
def test_rotary_embedding_rows_split_between_threads(layout, threads):
    # (batch, position) rows split between the threads: the same values as the reference.
    from _graphs import node_model

    import onnx_light

    rng = np.random.default_rng(7)
    b, s, h, hs = 2, 300, 4, 32
    x = rng.standard_normal((b, s, h * hs) if layout == "3d" else (b, h, s, hs)).astype(np.float32)
    cos = rng.standard_normal((400, hs // 2)).astype(np.float32)
    sin = rng.standard_normal((400, hs // 2)).astype(np.float32)
    pos = rng.integers(0, 400, (b, s))
    attrs = {"num_heads": h} if layout == "3d" else {}
    model = node_model(
        "RotaryEmbedding", [("x", F), ("c", F), ("s", F), ("p", I)], [("y", F)], 23, **attrs
    )
    (y,) = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(
        None, {"x": x, "c": cos, "s": sin, "p": pos}
    )
    np.testing.assert_allclose(y, rope_reference(x, cos, sin, pos, 0, hs, h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "inputs, feeds, attrs, match",
    [
        (
            [("x", F), ("c", F), ("s", F)],
            {
                "x": np.ones((1, 2, 6), np.float32),
                "c": np.ones((1, 2, 3), np.float32),
                "s": np.ones((1, 2, 3), np.float32),
            },
            {},
            "needs num_heads",
        ),
        (
            [("x", F), ("c", F), ("s", F)],
            {
                "x": np.ones((1, 1, 2, 6), np.float32),
                "c": np.ones((1, 2, 2), np.float32),
                "s": np.ones((1, 2, 2), np.float32),
            },
            {},
            "caches must be \\[1, 2, 3\\]",
        ),
        (
            [("x", F), ("c", F), ("s", F), ("p", I)],
            {
                "x": np.ones((1, 1, 2, 6), np.float32),
                "c": np.ones((4, 3), np.float32),
                "s": np.ones((4, 3), np.float32),
                "p": np.array([[0, 4]]),
            },
            {},
            "position id 4 is outside the cache of 4",
        ),
        (
            [("x", F), ("c", F), ("s", F)],
            {
                "x": np.ones((1, 1, 2, 6), np.float32),
                "c": np.ones((1, 2, 3), np.float32),
                "s": np.ones((1, 2, 3), np.float32),
            },
            {"rotary_embedding_dim": 5},
            "must be even",
        ),
    ],
)
def test_rotary_embedding_errors(inputs, feeds, attrs, match):
    with pytest.raises(ValueError, match=match):
        run_one("RotaryEmbedding", inputs, feeds, **attrs, opset=23)
