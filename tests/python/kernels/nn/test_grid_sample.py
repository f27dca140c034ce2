"""GridSample (src/onnx_light/kernels/nn/grid_sample.cc): values against independent
references (numpy, the ONNX reference formulas, or ONNX Runtime where its answer does not
depend on the CPU), integer results exactly, bad inputs refused with a ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, light_and_ort, node_bytes

import onnx_light


def model(op, inputs, out_type, opset, **attrs):
    return node_bytes(op, inputs, [("y", out_type)], opset, **attrs)


both = light_and_ort


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample_matches_onnxruntime(mode, padding, align):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    grid = rng.uniform(-1.4, 1.4, (2, 4, 6, 2)).astype(np.float32)
    data = model(
        "GridSample",
        [("x", F), ("g", F)],
        F,
        16,
        mode=mode,
        padding_mode=padding,
        align_corners=align,
    )
    if mode == "bicubic" and padding == "border":
        # ORT (like PyTorch) clamps each cubic tap but not the coordinate; the ONNX
        # reference clamps the coordinate first. onnx-light follows the ONNX reference.
        from onnx.reference import ReferenceEvaluator

        data = model(
            "GridSample",
            [("x", F), ("g", F)],
            F,
            20,
            mode="cubic",
            padding_mode=padding,
            align_corners=align,
        )
        (want,) = ReferenceEvaluator(data).run(None, {"x": x, "g": grid})
        (got,) = onnx_light.RuntimeSession(data).run(None, {"x": x, "g": grid})
    else:
        got, want = both(data, {"x": x, "g": grid})
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_grid_sample_many_channels_and_padding_reads_nothing(mode, threads):
    # 19 channels: two blocks of 8 sampled together and 3 one by one, split between the
    # threads; zeros padding adds nothing, not even 0 * an infinity held at x[..., 0, 0].
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 19, 9, 11)).astype(np.float32)
    x[:, :, 0, 0] = np.inf
    grid = rng.uniform(-1.3, 1.3, (2, 40, 30, 2)).astype(np.float32)
    grid[:, 0, :, :] = [-1.2, 0.3]  # left of the image: its taps partly padding
    data = model("GridSample", [("x", F), ("g", F)], F, 16, mode=mode, padding_mode="zeros")
    got = onnx_light.RuntimeSession(data, intra_op_threads=threads).run(None, {"x": x, "g": grid})
    _, want = both(data, {"x": x, "g": grid})
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)
    assert np.isfinite(got[0][:, :, 0, :]).all()


def test_grid_sample_errors():
    s = onnx_light.RuntimeSession(model("GridSample", [("x", F), ("g", F)], F, 20))
    with pytest.raises(ValueError, match="grid must be \\[N, out..., 2\\]"):
        s.run(
            None, {"x": np.zeros((1, 1, 4, 4), np.float32), "g": np.zeros((1, 2, 2, 3), np.float32)}
        )
    bad = onnx_light.RuntimeSession(model("GridSample", [("x", F), ("g", F)], F, 20, mode="area"))
    with pytest.raises(ValueError, match="unknown mode 'area'"):
        bad.run(
            None, {"x": np.zeros((1, 1, 4, 4), np.float32), "g": np.zeros((1, 2, 2, 2), np.float32)}
        )
    # nine spatial dimensions: refused (the tap combinations are indexed up to eight), and
    # the session still runs a good input afterwards
    with pytest.raises(ValueError, match="up to 8 spatial dimensions, got 9"):
        s.run(
            None,
            {
                "x": np.zeros((1, 1) + (1,) * 9, np.float32),
                "g": np.zeros((1,) * 10 + (9,), np.float32),
            },
        )
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    (y,) = s.run(None, {"x": x, "g": np.zeros((1, 1, 1, 2), np.float32)})
    np.testing.assert_allclose(y.ravel(), [7.5])  # the centre: the mean of 5, 6, 9, 10
