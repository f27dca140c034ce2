"""MelWeightMatrix (src/onnx_light/kernels/signal/mel_weight_matrix.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
from _graphs import D, F, I, run_node


def run(op, inputs, feeds, out_type=D, opset=20, **attrs):
    return run_node(op, inputs, feeds, [("y", out_type)], opset, **attrs)[0]


def test_mel_weight_matrix_matches_the_onnx_formula():
    mel, dft, rate, lo, hi = 8, 64, 8000, 20.0, 3800.0
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
        out_type=F,
        opset=17,
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
    np.testing.assert_allclose(y, want, rtol=1e-6)
