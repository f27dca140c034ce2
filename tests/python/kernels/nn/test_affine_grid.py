"""AffineGrid (src/onnx_light/kernels/nn/affine_grid.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, light_and_ort, node_bytes

import onnx_light


def model(op, inputs, out_type, opset, **attrs):
    return node_bytes(op, inputs, [("y", out_type)], opset, **attrs)


both = light_and_ort


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 5, 7], [1, 2, 3, 4, 5]])
def test_affine_grid_matches_onnxruntime(align, size):
    r = len(size) - 2
    theta = np.random.default_rng(28).standard_normal((size[0], r, r + 1)).astype(np.float32)
    data = model("AffineGrid", [("t", F), ("s", I)], F, 20, align_corners=align)
    got, want = both(data, {"t": theta, "s": np.array(size, np.int64)})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="theta must be"):
        onnx_light.RuntimeSession(data).run(None, {"t": theta, "s": np.array([1, 1, 4], np.int64)})
