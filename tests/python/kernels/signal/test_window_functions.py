"""BlackmanWindow, HammingWindow, HannWindow (src/onnx_light/kernels/signal/window_functions.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, I, run_node


def run(op, inputs, feeds, out_type=D, opset=20, **attrs):
    return run_node(op, inputs, feeds, [("y", out_type)], opset, **attrs)[0]


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
def test_windows_match_their_formulas(op, periodic):
    size = 10
    y = run(
        op,
        [("n", I)],
        {"n": np.array(size)},
        out_type=D,
        opset=17,
        periodic=periodic,
        output_datatype=D,
    )
    n1 = size if periodic else size - 1
    t = 2 * np.pi * np.arange(size) / n1
    want = {
        "HannWindow": 0.5 - 0.5 * np.cos(t),
        "HammingWindow": 25 / 46 - 21 / 46 * np.cos(t),
        "BlackmanWindow": 0.42 - 0.5 * np.cos(t) + 0.08 * np.cos(2 * t),
    }[op]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="size must be >= 0"):
        run(op, [("n", I)], {"n": np.array(-1)}, out_type=F, opset=17)
