"""Det (src/onnx_light/kernels/math/det.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, run_one


def test_det_matches_numpy_including_singular():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 4, 4))
    x[1, 2] = x[1, 0] * 2  # singular
    (y,) = run_one("Det", [("x", D)], {"x": x}, outputs=[("y", D)], opset=11)
    np.testing.assert_allclose(y, np.linalg.det(x), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="must be \\[..., M, M\\]"):
        run_one("Det", [("x", D)], {"x": np.ones((2, 3))}, outputs=[("y", D)], opset=11)
