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


def nms_reference(boxes, scores, max_out, iou, score_threshold):
    """The spec's greedy NMS over corner boxes: per batch and class, best score first (ties:
    lower index first), kept unless its IoU with a kept box exceeds iou."""

    def corners(b):
        return min(b[1], b[3]), min(b[0], b[2]), max(b[1], b[3]), max(b[0], b[2])

    def suppresses(a, b):
        ix = min(a[2], b[2]) - max(a[0], b[0])
        iy = min(a[3], b[3]) - max(a[1], b[1])
        if ix <= 0 or iy <= 0:
            return False
        inter = ix * iy
        area_a = (a[2] - a[0]) * (a[3] - a[1])
        area_b = (b[2] - b[0]) * (b[3] - b[1])
        return inter / (area_a + area_b - inter) > iou

    out = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            sc = scores[b, c].astype(np.float64)
            cand = [i for i in range(len(sc)) if score_threshold is None or sc[i] > score_threshold]
            cand.sort(key=lambda i: (-sc[i], i))
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                box = corners(boxes[b, i].astype(np.float64))
                if any(suppresses(box, k) for k in kept):
                    continue
                kept.append(box)
                out.append([b, c, i])
    return np.array(out, dtype=np.int64).reshape(-1, 3)


@pytest.mark.parametrize("max_out", [1, 25, 1000])
@pytest.mark.parametrize("threshold", [None, 0.5])
def test_nms_many_boxes_and_ties_match_the_reference(max_out, threshold):
    # 600 boxes, scores on a coarse grid (many ties), taken best first from a heap until
    # max_out are kept: the same boxes in the same order as a full sort.
    rng = np.random.default_rng(8)
    xy = rng.uniform(0, 50, (2, 600, 2)).astype(np.float32)
    boxes = np.concatenate([xy, xy + rng.uniform(1, 8, (2, 600, 2)).astype(np.float32)], -1)
    scores = (rng.integers(0, 20, (2, 4, 600)) / 20).astype(np.float32)
    feeds = {"b": boxes, "s": scores, "m": np.array([max_out]), "iou": np.array([0.4], np.float32)}
    inputs = NMS_IN[:4]
    if threshold is not None:
        feeds["st"] = np.array([threshold], np.float32)
        inputs = NMS_IN
    (got,) = onnx_light.RuntimeSession(model("NonMaxSuppression", inputs, I, 11)).run(None, feeds)
    want = nms_reference(boxes, scores, max_out, np.float32(0.4).item(), threshold)
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
