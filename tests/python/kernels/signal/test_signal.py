"""DFT, STFT, the window functions and MelWeightMatrix against numpy (np.fft in float64,
the window formulas, a transcription of the ONNX mel formula), and their errors.
Tolerance: float64 inputs rtol 1e-10 / atol 1e-9 (the transforms run in double)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import run_node

import onnx_light
from onnx_light.onnx import TensorProto

D, F, I = TensorProto.DOUBLE, TensorProto.FLOAT, TensorProto.INT64


def run(op, inputs, feeds, out_type=D, opset=20, **attrs):
    return run_node(op, inputs, feeds, [("y", out_type)], opset, **attrs)[0]


def as_complex(y):
    return y[..., 0] + 1j * y[..., 1]


@pytest.mark.parametrize("n", [8, 7, 12, 1])
@pytest.mark.parametrize("length", [None, 5, 16])
def test_dft_forward_complex_matches_numpy(n, length):
    rng = np.random.default_rng(22)
    x = rng.standard_normal((2, n, 3, 2))
    inputs = [("x", D), ("l", I), ("a", I)] if length else [("x", D), ("", I), ("a", I)]
    feeds = {"x": x, "a": np.array(1)} | ({"l": np.array(length)} if length else {})
    y = run("DFT", inputs, feeds)
    want = np.fft.fft(as_complex(x), n=length or n, axis=1)
    np.testing.assert_allclose(as_complex(y), want, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("n", [16, 9])
def test_dft_onesided_and_its_inverse(n):
    x = np.random.default_rng(23).standard_normal((3, n, 1))
    y = run("DFT", [("x", D), ("", I), ("a", I)], {"x": x, "a": np.array(-2)}, onesided=1)
    np.testing.assert_allclose(as_complex(y), np.fft.rfft(x[..., 0], axis=1), rtol=1e-10, atol=1e-9)
    back = run(
        "DFT",
        [("x", D), ("l", I), ("a", I)],
        {"x": y, "l": np.array(n), "a": np.array(1)},
        inverse=1,
        onesided=1,
    )
    np.testing.assert_allclose(back[..., 0], x[..., 0], rtol=1e-10, atol=1e-9)


def test_dft_inverse_complex_and_opset17_axis_attribute():
    x = np.random.default_rng(24).standard_normal((4, 6, 2))
    y = run("DFT", [("x", D)], {"x": x}, opset=17, axis=0, inverse=1)
    np.testing.assert_allclose(
        as_complex(y), np.fft.ifft(as_complex(x), axis=0), rtol=1e-10, atol=1e-9
    )


def test_dft_errors():
    with pytest.raises(ValueError, match="cannot be the last"):
        run("DFT", [("x", D), ("", I), ("a", I)], {"x": np.ones((3, 2)), "a": np.array(1)})
    with pytest.raises(ValueError, match="needs a real input"):
        run("DFT", [("x", D)], {"x": np.ones((1, 4, 2))}, opset=17, onesided=1)
    with pytest.raises(ValueError, match="dft_length must be >= 1"):
        run("DFT", [("x", D), ("l", I)], {"x": np.ones((1, 4, 1)), "l": np.array(0)}, opset=17)


def test_stft_with_window_matches_numpy():
    rng = np.random.default_rng(25)
    sig = rng.standard_normal((2, 50, 1))
    win = np.hanning(16)
    y = run(
        "STFT", [("s", D), ("st", I), ("w", D)], {"s": sig, "st": np.array(6), "w": win}, opset=17
    )
    frames = 1 + (50 - 16) // 6
    want = np.stack(
        [np.fft.rfft(sig[:, f * 6 : f * 6 + 16, 0] * win, axis=-1) for f in range(frames)], axis=1
    )
    np.testing.assert_allclose(as_complex(y), want, rtol=1e-10, atol=1e-9)
    with pytest.raises(ValueError, match="frame_length 8 differs"):
        run(
            "STFT",
            [("s", D), ("st", I), ("w", D), ("fl", I)],
            {"s": sig, "st": np.array(6), "w": win, "fl": np.array(8)},
            opset=17,
        )


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
