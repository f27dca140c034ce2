"""Einsum against numpy.einsum, RotaryEmbedding against a numpy transcription of the
ONNX formula, LpPool / LpNormalization / GroupNormalization / MaxPool's column-major
indices against numpy loops, on cases the backend data leaves out, and their errors.
Tolerances: float32 rtol 1e-5 (sums in double), float64 rtol 1e-12, integers exact."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import run_node

import onnx_light
from onnx_light.onnx import TensorProto

F, D, I = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64


def run(op, inputs, feeds, outs=(("y", F),), opset=23, **attrs):
    return run_node(op, inputs, feeds, outs, opset, **attrs)


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]),
    ("Ab,bA->A", [(3, 2), (2, 3)]),
    ("i...,i...->...", [(2, 3, 1), (2, 1, 4)]),
]


@pytest.mark.parametrize("eq, shapes", EINSUM, ids=[e for e, _ in EINSUM])
@pytest.mark.parametrize("dtype, onnx_type", [(np.float64, D), (np.int64, I)])
def test_einsum_matches_numpy(eq, shapes, dtype, onnx_type):
    rng = np.random.default_rng(5)
    ops = [rng.integers(-5, 6, s).astype(dtype) for s in shapes]
    names = [f"x{i}" for i in range(len(ops))]
    (y,) = run(
        "Einsum",
        [(n, onnx_type) for n in names],
        dict(zip(names, ops)),
        outs=[("y", onnx_type)],
        opset=12,
        equation=eq,
    )
    want = np.einsum(eq, *ops)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-12)


@pytest.mark.parametrize(
    "eq, shapes, match",
    [
        ("ij,jk->ik", [(3, 4), (5, 5)], "does not match"),
        ("ij->ik", [(3, 4)], "output label 'k' is not an input label"),
        ("ij->ii", [(3, 3)], "appears twice"),
        ("ijk->i", [(3, 4)], "has rank 2"),
        ("i$->i", [(3, 4)], "unexpected character"),
        ("ij,jk->ik", [(3, 4)], "has 2 operands, the node 1"),
    ],
)
def test_einsum_errors(eq, shapes, match):
    names = [f"x{i}" for i in range(len(shapes))]
    feeds = {n: np.ones(s, np.float32) for n, s in zip(names, shapes)}
    with pytest.raises(ValueError, match=match):
        run("Einsum", [(n, F) for n in names], feeds, opset=12, equation=eq)


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
    (y,) = run("RotaryEmbedding", inputs, feeds, **attrs)
    want = rope_reference(x, cos, sin, pos, interleaved, dim, h)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


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
        run("RotaryEmbedding", inputs, feeds, **attrs)


def test_lppool_p3_with_pads_matches_numpy():
    x = np.random.default_rng(7).standard_normal((1, 2, 5, 5)).astype(np.float32)
    (y,) = run(
        "LpPool",
        [("x", F)],
        {"x": x},
        opset=18,
        kernel_shape=[2, 2],
        p=3,
        pads=[1, 1, 0, 0],
        strides=[2, 2],
    )
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 0)))
    want = np.zeros((1, 2, 3, 3), np.float64)
    for i in range(3):
        for j in range(3):
            win = xp[:, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2].astype(np.float64)
            want[:, :, i, j] = (np.abs(win) ** 3).sum(axis=(2, 3)) ** (1 / 3)
    np.testing.assert_allclose(y, want, rtol=1e-5)


def test_lppool_rejects_p_below_one():
    with pytest.raises(ValueError, match="p must be >= 1"):
        run(
            "LpPool",
            [("x", F)],
            {"x": np.ones((1, 1, 3, 3), np.float32)},
            opset=18,
            kernel_shape=[2, 2],
            p=0,
        )


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalization_with_zero_rows(p):
    x = np.array([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    (y,) = run("LpNormalization", [("x", F)], {"x": x}, opset=1, axis=1, p=p)
    norm = np.linalg.norm(x, ord=p, axis=1, keepdims=True)
    want = np.divide(x, norm, out=np.zeros_like(x), where=norm != 0)
    np.testing.assert_allclose(y, want, rtol=1e-6)
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        run("LpNormalization", [("x", F)], {"x": x}, opset=1, p=3)


@pytest.mark.parametrize("opset", [18, 21])
def test_group_normalization_matches_numpy(opset):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 6, 3, 2)).astype(np.float32)
    groups = 3
    nparams = groups if opset < 21 else 6
    scale = rng.standard_normal(nparams).astype(np.float32)
    bias = rng.standard_normal(nparams).astype(np.float32)
    (y,) = run(
        "GroupNormalization",
        [("x", F), ("s", F), ("b", F)],
        {"x": x, "s": scale, "b": bias},
        opset=opset,
        num_groups=groups,
        epsilon=1e-3,
    )
    xg = x.reshape(2, groups, -1).astype(np.float64)
    norm = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-3)
    norm = norm.reshape(x.shape)
    per_channel = np.repeat(scale, 2) if opset < 21 else scale
    per_bias = np.repeat(bias, 2) if opset < 21 else bias
    want = norm * per_channel[None, :, None, None] + per_bias[None, :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="num_groups 4 must divide the 6 channels"):
        run(
            "GroupNormalization",
            [("x", F), ("s", F), ("b", F)],
            {"x": x, "s": scale, "b": bias},
            opset=opset,
            num_groups=4,
        )


def test_maxpool_column_major_indices():
    x = np.random.default_rng(9).standard_normal((1, 1, 4, 3)).astype(np.float32)
    y, ind = run(
        "MaxPool",
        [("x", F)],
        {"x": x},
        outs=[("y", F), ("i", I)],
        opset=12,
        kernel_shape=[2, 2],
        storage_order=1,
    )
    for i in range(3):
        for j in range(2):
            win = x[0, 0, i : i + 2, j : j + 2]
            r, c = np.unravel_index(np.argmax(win), win.shape)
            assert y[0, 0, i, j] == win[r, c]
            assert ind[0, 0, i, j] == (i + r) + (j + c) * 4  # column-major: h + w * H
