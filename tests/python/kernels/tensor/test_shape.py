"""Shape and Size (src/onnx_light/kernels/tensor/shape.cc): a tensor's dimensions, with
Shape-15's start and end (negative counting from the end, clamped), and its element
count, as int64."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I
from _one_node import session

X = np.zeros((2, 3, 5, 7), np.float32)


@pytest.mark.parametrize(
    "attrs,want",
    [
        ({}, [2, 3, 5, 7]),
        ({"start": 1}, [3, 5, 7]),
        ({"start": -2}, [5, 7]),
        ({"end": -1}, [2, 3, 5]),
        ({"start": 1, "end": 3}, [3, 5]),
        ({"start": -10, "end": 10}, [2, 3, 5, 7]),  # clamped
        ({"start": 3, "end": 1}, []),
    ],
)
def test_shape_with_start_and_end(attrs, want):
    (y,) = session("Shape", [("x", F)], out_type=I, opset=15, **attrs).run(None, {"x": X})
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, want)


def test_size():
    (y,) = session("Size", [("x", F)], out_type=I).run(None, {"x": X})
    assert y.dtype == np.int64 and y.shape == ()
    assert int(y) == X.size
