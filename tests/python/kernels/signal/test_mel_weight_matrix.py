"""MelWeightMatrix (src/onnx_light/kernels/signal/mel_weight_matrix.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, F, H, I, run_node


def run(op, inputs, feeds, out_type=D, opset=20, **attrs):
    return run_node(op, inputs, feeds, [("y", out_type)], opset, **attrs)[0]


# output_datatype: float (the default), double, float16, int32 (weights truncated: the 1s).
TYPES = [(None, F, np.float32), (11, D, np.float64), (10, H, np.float16), (6, 6, np.int32)]


@pytest.mark.parametrize("code,elem,dtype", TYPES, ids=[t[2].__name__ for t in TYPES])
def test_mel_weight_matrix_matches_the_onnx_formula(code, elem, dtype):
    mel, dft, rate, lo, hi = 8, 64, 8000, 20.0, 3800.0
    attrs = {} if code is None else {"output_datatype": code}
    y = run(
        "MelWeightMatrix",
        [("m", I), ("d", I), ("r", I), ("lo", F), ("hi", F)],
        {
            "m": np.array(mel),
            "d": np.array(dft),
            "r": np.array(rate),
            "lo": np.array(lo, np.float32),
            "hi": np.array(hi, np.float32),
        },
        out_type=elem,
        opset=17,
        **attrs,
    )
    lo_m, hi_m = 2595 * np.log10(1 + lo / 700), 2595 * np.log10(1 + hi / 700)
    edges = np.arange(mel + 2) * (hi_m - lo_m) / (mel + 2) + lo_m
    edges = (((dft + 1) * 700 * (10 ** (edges / 2595) - 1)) // rate).astype(int)
    want = np.zeros((dft // 2 + 1, mel))
    for i in range(mel):
        l, c, h = edges[i : i + 3]
        if c == l:
            want[c, i] = 1
        else:
            want[l : c + 1, i] = (np.arange(l, c + 1) - l) / (c - l)
        if h > c:
            want[c:h, i] = (h - np.arange(c, h)) / (h - c)
    assert y.dtype == dtype and y.shape == want.shape
    if dtype is np.int32:
        np.testing.assert_array_equal(y, want.astype(np.int32))
    else:  # each weight computed in double, converted once
        np.testing.assert_array_equal(y, want.astype(dtype))
