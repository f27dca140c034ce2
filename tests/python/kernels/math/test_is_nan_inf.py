"""IsNaN and IsInf (src/onnx_light/kernels/math/is_nan_inf.cc): the float classes as bool,
exactly numpy's, with IsInf's detect_positive / detect_negative."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, D, F
from _one_node import session

X = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 3e38], np.float32)


@pytest.mark.parametrize("elem,dtype", [(F, np.float32), (D, np.float64)])
def test_is_nan(elem, dtype):
    (y,) = session("IsNaN", [("x", elem)], out_type=B, opset=13).run(None, {"x": X.astype(dtype)})
    np.testing.assert_array_equal(y, np.isnan(X))


@pytest.mark.parametrize("pos,neg", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_is_inf_directions(pos, neg):
    s = session("IsInf", [("x", F)], out_type=B, detect_positive=pos, detect_negative=neg)
    (y,) = s.run(None, {"x": X})
    want = (np.isposinf(X) & bool(pos)) | (np.isneginf(X) & bool(neg))
    np.testing.assert_array_equal(y, want)
