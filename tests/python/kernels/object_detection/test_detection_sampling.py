"""NonMaxSuppression and GridSample against ONNX Runtime on random inputs larger than the
backend data's (every mode and padding for GridSample), and their errors. NMS indices
must match exactly; GridSample float32 within rtol 1e-4, atol 1e-5."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import light_and_ort, node_bytes

import onnx_light
from onnx_light.onnx import TensorProto

F, I = TensorProto.FLOAT, TensorProto.INT64


def model(op, inputs, out_type, opset, **attrs):
    return node_bytes(op, inputs, [("y", out_type)], opset, **attrs)


both = light_and_ort


NMS_IN = [("b", F), ("s", F), ("m", I), ("iou", F), ("st", F)]


@pytest.mark.parametrize("center", [0, 1])
def test_nms_matches_onnxruntime(center):
    rng = np.random.default_rng(20)
    xy = rng.uniform(0, 10, (2, 40, 2)).astype(np.float32)
    wh = rng.uniform(0.5, 4, (2, 40, 2)).astype(np.float32)
    if center:
        boxes = np.concatenate([xy, wh], axis=-1)
    else:  # [y1, x1, y2, x2] with some corners flipped
        boxes = np.concatenate([xy[..., ::-1], xy[..., ::-1] + wh], axis=-1)
        boxes[:, ::3] = boxes[:, ::3][..., [2, 3, 0, 1]]
    scores = rng.uniform(0, 1, (2, 3, 40)).astype(np.float32)
    scores[0, 0, 5] = scores[0, 0, 6]  # a tie
    feeds = {
        "b": boxes,
        "s": scores,
        "m": np.array([7]),
        "iou": np.array([0.3], np.float32),
        "st": np.array([0.2], np.float32),
    }
    got, want = both(model("NonMaxSuppression", NMS_IN, I, 11, center_point_box=center), feeds)
    np.testing.assert_array_equal(got, want)


def test_nms_errors():
    s = onnx_light.RuntimeSession(model("NonMaxSuppression", NMS_IN[:2], I, 11))
    with pytest.raises(ValueError, match="boxes must be \\[batch, boxes, 4\\]"):
        s.run(None, {"b": np.zeros((1, 3, 5), np.float32), "s": np.zeros((1, 1, 3), np.float32)})
    s = onnx_light.RuntimeSession(model("NonMaxSuppression", NMS_IN[:4], I, 11))
    with pytest.raises(ValueError, match="iou_threshold must be in \\[0, 1\\]"):
        s.run(
            None,
            {
                "b": np.zeros((1, 3, 4), np.float32),
                "s": np.zeros((1, 1, 3), np.float32),
                "m": np.array([1]),
                "iou": np.array([1.5], np.float32),
            },
        )


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


@pytest.mark.parametrize(
    "attrs", [{}, {"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}]
)
def test_col2im_matches_onnxruntime(attrs):
    image, block = [6, 7], [2, 3]
    k = 2 * 3
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    p = attrs.get("pads", [0, 0, 0, 0])
    bh = (image[0] + p[0] + p[2] - dh * (block[0] - 1) - 1) // sh + 1
    bw = (image[1] + p[1] + p[3] - dw * (block[1] - 1) - 1) // sw + 1
    x = np.random.default_rng(29).standard_normal((2, 3 * k, bh * bw)).astype(np.float32)
    data = model("Col2Im", [("x", F), ("i", I), ("b", I)], F, 18, **attrs)
    feeds = {"x": x, "i": np.array(image), "b": np.array(block)}
    got, want = both(data, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="does not hold"):
        onnx_light.RuntimeSession(data).run(None, feeds | {"x": x[:, :, :-1].copy()})
