"""DFT, STFT, the window functions and MelWeightMatrix against numpy (np.fft in float64,
the window formulas, a transcription of the ONNX mel formula), and their errors.
Tolerance: float64 inputs rtol 1e-10 / atol 1e-9 (the transforms run in double)."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import D, I, run_node


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
