"""float32 MaxPool and AveragePool over 1-D and 2-D windows without dilation run
separably in vector code (nn/pool_rows.cc): each row's windows at the window's stride,
then the rows of each output row. Against a float64 numpy loop that follows the spec:
max exact (NaN in a window wins), average within rtol 1e-6 + atol 1e-6 (float sums of at
most 25 terms near 1, taken in float as ONNX Runtime takes them). The geometries cover
strides 1, 2 (de-interleaved loads) and 3 (gathers), pads before and after, ceil_mode's
partial last windows, count_include_pad, rows shorter and longer than every vector width,
rows read in place (with column pads: the windows inside the row in place, the end
windows in scalar code) and the last rows of the input copied (their vector loads would
read past its end), "same" padding at stride 1 (a plane's interior as one run), 1 and 2
threads."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto


def out_size(size, k, s, pb, pe, ceil_mode):
    total = size + pb + pe - k
    o = (-(-total // s) if ceil_mode else total // s) + 1
    if ceil_mode and (o - 1) * s >= size + pb:
        o -= 1  # the last window starts inside the input or the begin pad
    return o


def reference(x, op, kernel_shape, strides, pads, ceil_mode=0, count_include_pad=0):
    rank = len(kernel_shape)
    spatial = x.shape[2:]
    outs = [
        out_size(spatial[d], kernel_shape[d], strides[d], pads[d], pads[d + rank], ceil_mode)
        for d in range(rank)
    ]
    y = np.zeros(x.shape[:2] + tuple(outs), np.float64)
    for o in np.ndindex(*outs):
        index, count = [slice(None), slice(None)], 1
        for d in range(rank):
            start = o[d] * strides[d] - pads[d]
            lo, hi = max(start, 0), min(start + kernel_shape[d], spatial[d])
            index.append(slice(lo, hi))
            if count_include_pad:
                hi_pad = min(start + kernel_shape[d], spatial[d] + pads[d + rank])
                count *= hi_pad - start
            else:
                count *= hi - lo
        window = x[tuple(index)].astype(np.float64).reshape(x.shape[0], x.shape[1], -1)
        if op == "MaxPool":
            v = np.max(window, axis=2)  # NaN propagates
        else:
            v = window.sum(axis=2) / count
        y[(slice(None), slice(None)) + o] = v
    return y


CASES_2D = [
    ([1, 8, 112, 112], [3, 3], [2, 2], [1, 1, 1, 1], 0),  # ResNet's stem pool
    ([2, 4, 56, 56], [2, 2], [2, 2], [0, 0, 0, 0], 0),
    ([1, 3, 17, 33], [3, 3], [2, 2], [1, 1, 1, 1], 1),
    ([1, 3, 9, 7], [3, 2], [1, 2], [1, 0, 1, 1], 1),
    ([2, 3, 15, 40], [3, 3], [3, 3], [1, 2, 2, 1], 1),
    ([1, 2, 7, 7], [5, 5], [1, 1], [2, 2, 2, 2], 0),
    ([1, 2, 30, 70], [2, 4], [2, 3], [0, 1, 1, 3], 0),
    ([3, 2, 5, 5], [5, 5], [1, 1], [0, 0, 0, 0], 0),
    ([1, 5, 20, 21], [3, 3], [2, 2], [0, 0, 0, 0], 1),
    # Rows with column pads read in place between their end windows (scalar): Inception's
    # 3x3 average, pads on one side only, a pad of 2 before a 3-wide window, rows shorter
    # than a vector with pads.
    ([1, 6, 35, 35], [3, 3], [1, 1], [1, 1, 1, 1], 0),
    ([2, 3, 11, 50], [3, 3], [1, 1], [0, 0, 0, 2], 0),
    ([1, 3, 10, 41], [3, 3], [1, 1], [1, 2, 1, 0], 0),
    ([2, 4, 6, 9], [3, 3], [2, 2], [1, 1, 1, 1], 1),
    ([1, 2, 5, 2], [3, 3], [1, 2], [1, 1, 1, 1], 0),  # rows narrower than the window
    # "Same" padding at stride 1: each plane's interior windows in one run along and one
    # down the plane (the edges recomputed; the last plane, whose vector loads would read
    # past the input, row by row): pads on one side, YOLO's SPPF 5x5 and SPP 13x13, planes
    # smaller than a vector.
    ([2, 3, 12, 19], [2, 2], [1, 1], [0, 0, 1, 1], 0),
    ([1, 3, 9, 10], [4, 4], [1, 1], [2, 1, 1, 2], 0),
    ([1, 4, 20, 20], [5, 5], [1, 1], [2, 2, 2, 2], 0),
    ([1, 2, 13, 13], [13, 13], [1, 1], [6, 6, 6, 6], 0),
    ([2, 3, 4, 3], [3, 3], [1, 1], [1, 1, 1, 1], 0),
]
CASES_1D = [
    ([2, 16, 100], [3], [2], [1, 1], 0),
    ([1, 4, 37], [4], [4], [0, 3], 1),
    ([1, 3, 9], [2], [3], [1, 1], 0),
    ([4, 8, 50], [5], [1], [2, 2], 0),
    ([2, 5, 33], [4], [1], [1, 2], 0),
]


def run(op, shape, k, s, pads, ceil_mode, threads, count_include_pad=0, nan=False):
    rng = np.random.default_rng(sum(shape) + len(k) * 7 + s[0])
    x = rng.standard_normal(shape).astype(np.float32)
    if nan:
        x.ravel()[::13] = np.nan
        x.ravel()[5::17] = -np.inf
    attrs = {"kernel_shape": k, "strides": s, "pads": pads, "ceil_mode": ceil_mode}
    if op == "AveragePool":
        attrs["count_include_pad"] = count_include_pad
    model = node_model(op, [("x", TensorProto.FLOAT)], [("y", TensorProto.FLOAT)], **attrs)
    got = onnx_light.RuntimeSession(model, intra_op_threads=threads).run(None, {"x": x})[0]
    want = reference(x, op, k, s, pads, ceil_mode, count_include_pad)
    assert got.shape == want.shape
    return got, want


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("shape,k,s,pads,ceil_mode", CASES_2D + CASES_1D)
def test_maxpool_rows_exact(shape, k, s, pads, ceil_mode, nan, threads):
    got, want = run("MaxPool", shape, k, s, pads, ceil_mode, threads, nan=nan)
    np.testing.assert_array_equal(got, want.astype(np.float32))
    assert np.isnan(got).any() == nan


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("count_include_pad", [0, 1])
@pytest.mark.parametrize("shape,k,s,pads,ceil_mode", CASES_2D + CASES_1D)
def test_average_pool_rows(shape, k, s, pads, ceil_mode, count_include_pad, threads):
    got, want = run("AveragePool", shape, k, s, pads, ceil_mode, threads, count_include_pad)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_average_pool_rows_agree_with_onnxruntime():
    import onnxruntime as ort  # the oracle (requirements/oracles.txt): missing fails loudly

    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 28, 28)).astype(np.float32)
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}
    for include in (0, 1):
        model = node_model(
            "AveragePool",
            [("x", TensorProto.FLOAT)],
            [("y", TensorProto.FLOAT)],
            count_include_pad=include,
            **attrs,
        )
        got = onnx_light.RuntimeSession(model).run(None, {"x": x})[0]
        want = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        ).run(None, {"x": x})[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
