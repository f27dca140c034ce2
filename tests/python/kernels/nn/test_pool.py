"""float32 2-D MaxPool without Indices runs separably (row maxima, then the maximum over
rows); with Indices it scans each window. Both against a numpy loop that follows the
spec (the maximum of the window's taps inside the input, NaN if any tap is NaN): exact,
including padding, strides, dilations, ceil_mode windows that end past the input, and
NaN inputs; the two paths agree on values. 8-bit MaxPool (quantized CNNs) against the same
reference."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, node_model, run_one
from _one_node import check_bad_input, f32, session

import onnx_light
from onnx_light.onnx import TensorProto

CASES = [
    ([1, 3, 13, 13], {"kernel_shape": [5, 5], "pads": [2, 2, 2, 2]}),
    ([2, 4, 13, 13], {"kernel_shape": [13, 13], "pads": [6, 6, 6, 6]}),
    ([1, 2, 10, 11], {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}),
    (
        [1, 2, 9, 9],
        {"kernel_shape": [2, 3], "strides": [2, 1], "pads": [1, 0, 0, 2], "dilations": [2, 1]},
    ),
    (
        [1, 2, 7, 8],
        {"kernel_shape": [3, 3], "strides": [3, 3], "pads": [0, 0, 2, 2], "ceil_mode": 1},
    ),
    # Stride 1 along the width: shifted rows, vectorized.
    ([1, 3, 6, 40], {"kernel_shape": [3, 9], "pads": [1, 4, 1, 4]}),
    ([1, 2, 5, 7], {"kernel_shape": [2, 9], "pads": [0, 1, 1, 3]}),  # wider than the row
    ([1, 2, 9, 33], {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 0, 1]}),
]


def reference(x, kernel_shape, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), ceil_mode=0):
    n, c, h, w = x.shape
    out = []
    for d, size in enumerate((h, w)):
        span = (kernel_shape[d] - 1) * dilations[d] + 1
        total = size + pads[d] + pads[d + 2] - span
        o = (-(-total // strides[d]) if ceil_mode else total // strides[d]) + 1
        if ceil_mode and (o - 1) * strides[d] >= size + pads[d]:
            o -= 1  # the last window must start inside the input or the begin pad
        out.append(o)
    y = np.zeros((n, c, out[0], out[1]), np.float32)
    for i in range(out[0]):
        for j in range(out[1]):
            hs = [i * strides[0] - pads[0] + k * dilations[0] for k in range(kernel_shape[0])]
            ws = [j * strides[1] - pads[1] + k * dilations[1] for k in range(kernel_shape[1])]
            hs = [v for v in hs if 0 <= v < h]
            ws = [v for v in ws if 0 <= v < w]
            if hs and ws:
                y[:, :, i, j] = np.max(x[:, :, hs][:, :, :, ws], axis=(2, 3))
    return y


def maxpool_session(attrs, with_indices, threads=1):
    outs = [("y", TensorProto.FLOAT)] + ([("i", TensorProto.INT64)] if with_indices else [])
    model = node_model("MaxPool", [("x", TensorProto.FLOAT)], outs, opset=13, **attrs)
    return onnx_light.RuntimeSession(model, intra_op_threads=threads)


@pytest.mark.parametrize("shape,attrs", CASES)
@pytest.mark.parametrize("nan", [False, True])
def test_maxpool_paths_match_the_spec(shape, attrs, nan):
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    if nan:
        x.ravel()[::17] = np.nan
    want = reference(x, **attrs)
    separable = maxpool_session(attrs, False).run(None, {"x": x})[0]
    scanned = maxpool_session(attrs, True).run(None, {"x": x})[0]
    np.testing.assert_array_equal(separable, want)
    np.testing.assert_array_equal(scanned, want)
    assert np.isnan(want).any() == nan


@pytest.mark.parametrize("shape,attrs", CASES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_maxpool_of_8_bit_codes_matches_the_spec(shape, attrs, dtype):
    # (the quantized CNNs' MaxPool: 2-D without Indices runs directly on the codes; with
    # Indices, the generic scan)
    info = np.iinfo(dtype)
    x = np.random.default_rng(5).integers(info.min, info.max + 1, shape).astype(dtype)
    want = reference(x.astype(np.float32), **attrs).astype(dtype)
    t = TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8
    for outs in ([("y", t)], [("y", t), ("i", TensorProto.INT64)]):
        model = node_model("MaxPool", [("x", t)], outs, opset=13, **attrs)
        got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "k,pads",
    [
        (5, [2, 2, 2, 2]),
        (9, [4, 4, 4, 4]),
        (13, [6, 6, 6, 6]),
        (4, [1, 2, 2, 1]),
        (2, [0, 0, 1, 1]),
        (3, [1, 1, 1, 1]),
        (6, [2, 3, 3, 2]),
        (7, [0, 0, 0, 0]),
    ],
)
def test_stride_one_maxpool_over_padded_planes(k, pads, threads):
    # Unit strides, pads inside the window (the SPP blocks): padded flattened planes, the
    # windows by doubling (2, 4, 8 taps, then two overlapping: 13 = 8 + 5 more), the planes
    # split across threads; NaN and -inf included.
    rng = np.random.default_rng(k)
    x = rng.standard_normal((2, 96, 13, 11)).astype(np.float32)
    x.ravel()[::29] = np.nan
    x.ravel()[7::31] = -np.inf
    attrs = {"kernel_shape": [k, k], "pads": pads}
    got = maxpool_session(attrs, False, threads).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, reference(x, **attrs))


@pytest.mark.parametrize("size", [1, 15, 16, 17, 508, 1000])
def test_global_max_pool_float_against_numpy(size):
    # 16 running maxima plus a tail: every size around the block; NaN is skipped (numpy's
    # nanmax), as the generic path did; an all-negative channel stays negative.
    rng = np.random.default_rng(size)
    x = rng.standard_normal((2, 3, size)).astype(np.float32)
    x[0, 1] -= 100
    if size > 3:
        x[1, 2, 3] = np.nan
    F = TensorProto.FLOAT
    (y,) = onnx_light.RuntimeSession(node_model("GlobalMaxPool", [("x", F)], [("y", F)])).run(
        None, {"x": x}
    )
    np.testing.assert_array_equal(y[..., 0], np.nanmax(x, axis=2))


@pytest.mark.parametrize("p", [1, 2, 3])  # 1 and 2 without pow, 3 with it
def test_lppool_with_pads_matches_numpy(p):
    x = np.random.default_rng(7).standard_normal((1, 2, 5, 5)).astype(np.float32)
    (y,) = run_one(
        "LpPool",
        [("x", F)],
        {"x": x},
        opset=18,
        kernel_shape=[2, 2],
        p=p,
        pads=[1, 1, 0, 0],
        strides=[2, 2],
    )
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (1, 0)))
    want = np.zeros((1, 2, 3, 3), np.float64)
    for i in range(3):
        for j in range(3):
            win = xp[:, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2].astype(np.float64)
            want[:, :, i, j] = (np.abs(win) ** p).sum(axis=(2, 3)) ** (1 / p)
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_lppool_rejects_p_below_one():
    with pytest.raises(ValueError, match="p must be >= 1"):
        run_one(
            "LpPool",
            [("x", F)],
            {"x": np.ones((1, 1, 3, 3), np.float32)},
            opset=18,
            kernel_shape=[2, 2],
            p=0,
        )


def test_maxpool_column_major_indices():
    x = np.random.default_rng(9).standard_normal((1, 1, 4, 3)).astype(np.float32)
    y, ind = run_one(
        "MaxPool",
        [("x", F)],
        {"x": x},
        outputs=[("y", F), ("i", I)],
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


def test_max_and_average_pool_against_numpy():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    (m,) = session("MaxPool", [("x", F)], kernel_shape=[2, 2], strides=[2, 2]).run(None, {"x": x})
    np.testing.assert_array_equal(m, x[:, :, :6, :6].reshape(2, 4, 3, 2, 3, 2).max(axis=(3, 5)))
    (a,) = session("AveragePool", [("x", F)], kernel_shape=[1, 3], pads=[0, 1, 0, 1]).run(
        None, {"x": x}
    )
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (0, 0), (1, 1)))
    counts = np.array([2, 3, 3, 3, 3, 2], np.float64)  # count_include_pad=0
    ref = (xp[..., :-2] + xp[..., 1:-1] + xp[..., 2:]) / counts
    # float sums as ONNX Runtime takes them: 3 terms near 1, a few float ulps
    np.testing.assert_allclose(a, ref, rtol=1e-6, atol=2e-7)


BAD_INPUTS = [
    (
        "MaxPool",
        [("x", F)],
        {"kernel_shape": [2], "strides": [1, 1]},
        {"x": f32(1, 1, 4, 4)},
        "do not match 2 spatial dims",
    ),
    ("AveragePool", [("x", F)], {"kernel_shape": [2, 0]}, {"x": f32(1, 1, 4, 4)}, "must be >= 1"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


def _max_rule(v, best):
    """MaxPool's order for one tap into the running maximum: v when greater or NaN."""
    return np.where((v > best) | np.isnan(v), v, best)


def _maxpool_2x2_s2_reference(x):
    """2 x 2 windows at stride 2 (floor mode: a last odd row or column is left out), taken
    as the separable path takes them: each row's two taps, then the second row's maximum
    into the first's; so ties keep the earlier value (the sign of a zero shows it)."""
    oh, ow = x.shape[2] // 2, x.shape[3] // 2
    c = x[:, :, : 2 * oh, : 2 * ow]
    top = _max_rule(c[:, :, 0::2, 1::2], c[:, :, 0::2, 0::2])
    bottom = _max_rule(c[:, :, 1::2, 1::2], c[:, :, 1::2, 0::2])
    return _max_rule(bottom, top)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "shape", [(3, 4, 10, 10), (2, 3, 7, 9), (1, 1, 2, 2), (600, 10, 10, 10), (2, 3, 41, 70)]
)
def test_maxpool_2x2_stride_2_matches_the_separable_order(shape, threads):
    rng = np.random.default_rng(sum(shape))
    x = rng.integers(-3, 4, shape).astype(np.float32)  # many ties
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.03] = np.inf
    x[rng.random(shape) < 0.03] = -np.inf  # windows of +inf and -inf: their sum is NaN
    zeros = rng.random(shape) < 0.2
    x[zeros] = np.where(rng.random(int(zeros.sum())) < 0.5, -0.0, 0.0)  # ties of -0 and +0
    model = node_model("MaxPool", [("x", F)], [("y", F)], kernel_shape=[2, 2], strides=[2, 2])
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = _maxpool_2x2_s2_reference(x)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(3, 4, 10, 10), (2, 3, 7, 9), (1, 48, 32, 16), (1, 1, 1, 2)])
def test_maxpool_1x2_stride_1_2_matches_the_separable_order(shape, threads):
    """1 x 2 windows at stride (1, 2) (an audio model halving its time axis) take the 2 x 2
    path's row step: the later tap first, ties keep the earlier value, NaN wins."""
    rng = np.random.default_rng(sum(shape) + 1)
    x = rng.integers(-3, 4, shape).astype(np.float32)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.03] = np.inf
    zeros = rng.random(shape) < 0.2
    x[zeros] = np.where(rng.random(int(zeros.sum())) < 0.5, -0.0, 0.0)
    model = node_model("MaxPool", [("x", F)], [("y", F)], kernel_shape=[1, 2], strides=[1, 2])
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    ow = shape[3] // 2
    want = _max_rule(x[:, :, :, 1 : 2 * ow : 2], x[:, :, :, 0 : 2 * ow : 2])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    # The general path (asked for the indices too) gives the same maxima.
    scanned = maxpool_session({"kernel_shape": [1, 2], "strides": [1, 2]}, True).run(
        None, {"x": x}
    )[0]
    np.testing.assert_array_equal(scanned, want)


def test_maxpool_2x2_stride_2_in_ceil_mode_keeps_the_partial_windows():
    x = np.arange(2 * 1 * 5 * 7, dtype=np.float32).reshape(2, 1, 5, 7)
    model = node_model(
        "MaxPool", [("x", F)], [("y", F)], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1
    )
    got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    want = padded.reshape(2, 1, 3, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(got, want)
