"""Dropout (src/onnx_light/kernels/nn/dropout.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import B, F
from _one_node import session


def test_dropout_training_mode_only_with_ratio_0():
    s = session("Dropout", [("a", F), ("r", F), ("t", B)])
    x = np.arange(6, dtype=np.float32)
    with pytest.raises(
        RuntimeError, match="training_mode=true with a ratio above 0 is not supported"
    ):
        s.run(None, {"a": x, "r": np.array(0.5, np.float32), "t": np.array(True)})
    (y,) = s.run(None, {"a": x, "r": np.array(0.0, np.float32), "t": np.array(True)})
    np.testing.assert_array_equal(y, x)
    (y,) = s.run(None, {"a": x, "r": np.array(0.5, np.float32), "t": np.array(False)})
    np.testing.assert_array_equal(y, x)
