"""Trilu (src/onnx_light/kernels/tensor/trilu.cc): exactly numpy's triu / tril over the last
two axes (batched), for every diagonal offset k from far below to far above the matrix,
square, wide and tall matrices and integer types; bad inputs refused with a ValueError
that names the node."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import I32, F, I
from _one_node import check_bad_input, f32, session

BAD_INPUTS = [
    ("Trilu", [("a", F)], {}, {"a": f32(3)}, "rank must be >= 2"),
]


@pytest.mark.parametrize("op,inputs,attrs,feeds,message", BAD_INPUTS)
def test_bad_inputs_are_value_errors_naming_the_node(op, inputs, attrs, feeds, message):
    check_bad_input(op, inputs, attrs, feeds, message)


@pytest.mark.parametrize("upper", [1, 0])
@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (6, 2), (1, 0, 3)])
@pytest.mark.parametrize("k", [-(2**62), -7, -1, 0, 2, 9, 2**62])
def test_matches_numpy(upper, shape, k):
    x = np.arange(1, np.prod(shape) + 1, dtype=np.float32).reshape(shape)
    s = session("Trilu", [("x", F), ("k", I)], opset=14, upper=upper)
    (y,) = s.run(None, {"x": x, "k": np.array(k)})
    kk = int(np.clip(k, -100, 100))
    np.testing.assert_array_equal(y, np.triu(x, kk) if upper else np.tril(x, kk))


def test_int32_without_k_keeps_the_upper_triangle():
    x = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    (y,) = session("Trilu", [("x", I32)], out_type=I32, opset=14).run(None, {"x": x})
    np.testing.assert_array_equal(y, np.triu(x))
