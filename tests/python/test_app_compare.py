"""tests/apps/compare.py (scripts/test_apps.sh) can fail: it refuses a changed label, a float
past its app's tolerance, a missing item, and a run that did not get the runtime it claims."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

COMPARE = Path(__file__).resolve().parents[1] / "apps" / "compare.py"


def run(tmp_path, app, light, ort):
    (tmp_path / "l.json").write_text(json.dumps(light))
    (tmp_path / "o.json").write_text(json.dumps(ort))
    return subprocess.run(
        [sys.executable, str(COMPARE), app, str(tmp_path / "l.json"), str(tmp_path / "o.json")],
        capture_output=True,
        text=True,
    )


ORT = {"runtime": "onnxruntime 1.30.0", "files": {"c": {"label": "c", "score": 0.5}}}


def light(label="c", score=0.5, runtime="onnx-light"):
    return {"runtime": runtime, "files": {"c": {"label": label, "score": score}}}


def test_equal_results_within_tolerance_match(tmp_path):
    r = run(tmp_path, "magika", light(score=0.5009), ORT)
    assert r.returncode == 0 and "matches ORT" in r.stdout


@pytest.mark.parametrize(
    "changed, why",
    [
        (light(label="python"), "'python'"),
        (light(score=0.502), "tolerance 0.001"),
        (light(runtime="onnxruntime 1.30.0"), "did not get onnx-light"),
        ({"runtime": "onnx-light", "files": {}}, "keys"),
    ],
)
def test_a_difference_fails(tmp_path, changed, why):
    r = run(tmp_path, "magika", changed, ORT)
    assert r.returncode == 1 and "DIFFERS" in r.stdout and why in r.stdout


def test_a_list_of_another_length_fails(tmp_path):
    r = run(
        tmp_path,
        "silero_vad",
        {"runtime": "onnx-light", "probs": [0.1]},
        {"runtime": "onnxruntime 1.30.0", "probs": [0.1, 0.2]},
    )
    assert r.returncode == 1 and "1 items on onnx-light, 2 on ORT" in r.stdout
