"""Hardmax (opset 13, along an axis): 1 at the first maximum of each row, 0 elsewhere.
float32 rows along the last axis find the maximum in vector code, then its first place;
exact against a numpy reference (np.argmax is the first maximum). Ties, -inf rows, +-0
(equal: the first of them), rows shorter and longer than a vector, and rows with a NaN
(NaN never compares greater: the first maximum of the other values; a row of NaN only
gives 1 at its first place, as the scalar scan did)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto


def hardmax(dtype, axis=-1):
    t = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    return onnx_light.RuntimeSession(
        node_model("Hardmax", [("x", t)], [("y", t)], opset=13, axis=axis)
    )


def reference(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    clean = np.where(np.isnan(flat), -np.inf, flat)
    out = np.zeros_like(flat)
    out[np.arange(len(flat)), np.argmax(clean, axis=1)] = 1
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 1000), (5, 1), (9, 17), (3, 4, 33)])
def test_first_maximum_of_each_row(shape, dtype):
    rng = np.random.default_rng(shape[-1])
    # Few distinct values: most rows have their maximum more than once.
    x = rng.integers(-3, 4, shape).astype(dtype)
    flat = x.reshape(-1, shape[-1])
    flat[0] = -np.inf  # a row of -inf: its first place
    if shape[-1] > 2:
        flat[1, :3] = [-0.0, 0.0, -1.0]  # -0 == 0: the first of them
        flat[1, 3:] = -5
    np.testing.assert_array_equal(hardmax(dtype).run(None, {"x": x})[0], reference(x))


def test_rows_with_nan():
    x = np.array(
        [[1, np.nan, 3, 2], [np.nan] * 4, [np.nan, -1, -1, np.nan], [-np.inf, np.nan, -7, -7]],
        np.float32,
    )
    want = np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], np.float32)
    np.testing.assert_array_equal(hardmax(np.float32).run(None, {"x": x})[0], want)


def test_middle_axis():
    x = np.random.default_rng(3).integers(-2, 3, (4, 6, 5)).astype(np.float32)
    got = hardmax(np.float32, axis=1).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, reference(x, axis=1))
