"""CenterCropPad (src/onnx_light/kernels/tensor/center_crop_pad.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, run_one


@pytest.mark.parametrize("shape", [[3, 7], [6, 2], [5, 5]])
def test_center_crop_pad_odd_and_even(shape):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    (y,) = run_one("CenterCropPad", [("x", F), ("s", I)], {"x": x, "s": np.array(shape)}, opset=18)
    want = np.zeros(shape, np.float32)
    src, dst = [], []
    for dim, sh in zip(x.shape, shape):
        n = min(dim, sh)
        s0 = (dim - sh) // 2 if dim > sh else 0
        d0 = (sh - dim) // 2 if sh > dim else 0
        src.append(slice(s0, s0 + n))
        dst.append(slice(d0, d0 + n))
    want[tuple(dst)] = x[tuple(src)]
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match="shape has 1 entries for 2 axes"):
        run_one("CenterCropPad", [("x", F), ("s", I)], {"x": x, "s": np.array([3])}, opset=18)
