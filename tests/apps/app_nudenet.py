"""nudenet (a YOLOv8 detector; it imports onnxruntime.capi._pybind_state): detections in
generated images of skin-toned shapes, and -- since such images give few detections -- the
strongest class scores of the same runs, read through nudenet's own pre-processing and
session (``nudenet._read_image``, ``detector.onnx_session``)."""

import os
import tempfile

import _common
import cv2
import nudenet.nudenet as nn
import numpy as np
from nudenet import NudeDetector

out = _common.out_path()
detector = NudeDetector()
rng = np.random.default_rng(11)
results, strongest = [], []
with tempfile.TemporaryDirectory() as tmp:
    for i in range(4):
        img = np.full((480, 360, 3), (90, 120, 60), np.uint8)
        for _ in range(6):
            center = (int(rng.integers(40, 320)), int(rng.integers(40, 440)))
            axes = (int(rng.integers(20, 90)), int(rng.integers(30, 140)))
            skin = tuple(int(v) for v in rng.integers((120, 150, 190), (170, 200, 240)))
            cv2.ellipse(img, center, axes, float(rng.integers(0, 180)), 0, 360, skin, -1)
        img = cv2.GaussianBlur(img, (9, 9), 3)
        path = os.path.join(tmp, f"img{i}.png")
        cv2.imwrite(path, img)
        dets = detector.detect(path)
        blob = nn._read_image(path, detector.input_width)[0]
        raw = detector.onnx_session.run(None, {detector.input_name: blob})[0]  # (1, 4 + C, N)
        top = np.sort(raw[0, 4:].max(axis=0))[::-1][:20]
        strongest.append([float(v) for v in top])
        results.append(
            sorted(
                (
                    {
                        "class": d["class"],
                        "score": float(d["score"]),
                        "box": [int(v) for v in d["box"]],
                    }
                    for d in dets
                ),
                key=lambda d: (d["class"], d["box"]),
            )
        )
_common.write(out, {"images": results, "top_scores": strongest})
