"""Hugging Face Optimum's ORTModel classes, unmodified, on onnx-light's drop-in against the
same program on real ONNX Runtime 1.30 (tests/python/optimum/run_cases.py, run twice):
feature extraction and sequence classification (BERT), image classification (ViT), speech
recognition (Whisper, `generate()`), an encoder-decoder's `generate()` (T5) and two decoder-
only models' logits and `generate()` (GPT-2, Llama). The models are random-weight
checkpoints built from config classes and exported by Optimum itself (make_models.py;
no hub access), cached per version of the exporter and the pins. Optimum, transformers and
torch live in a test-only venv (scripts/test_venv.sh optimum, requirements/optimum.txt)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CACHE = Path(
    os.environ.get("ONNX_LIGHT_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "onnx-light"
)


def venv_python() -> str:
    done = subprocess.run(
        [str(REPO / "scripts" / "test_venv.sh"), "optimum"], capture_output=True, text=True
    )
    assert done.returncode == 0, f"scripts/test_venv.sh optimum failed:\n{done.stderr[-3000:]}"
    return done.stdout.strip().splitlines()[-1]


def exported_models(python: str) -> Path:
    stamp = hashlib.sha256(
        (HERE / "make_models.py").read_bytes() + (REPO / "requirements/optimum.txt").read_bytes()
    ).hexdigest()[:16]
    folder = CACHE / "optimum-models" / stamp
    if not (folder / ".done").exists():
        tmp = folder.with_name(stamp + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        done = subprocess.run(
            [python, str(HERE / "make_models.py"), str(tmp)], capture_output=True, text=True
        )
        assert done.returncode == 0, f"exporting the models failed:\n{done.stderr[-3000:]}"
        (tmp / ".done").touch()
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
    return folder


@pytest.fixture(scope="module")
def results():
    python = venv_python()
    models = exported_models(python)
    runs = {}
    for mode in ("real", "light"):
        done = subprocess.run(
            [python, str(HERE / "run_cases.py"), mode, str(models), str(REPO)],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=""),
        )
        assert done.returncode == 0, f"{mode}:\n{done.stderr[-4000:]}"
        runs[mode] = json.loads(done.stdout.strip().splitlines()[-1])
    return runs


CASES = [
    "bert_features",
    "bert_classifier",
    "vit_classifier",
    "whisper_generate",
    "t5_generate",
    "gpt2_logits",
    "gpt2_generate",
    "llama_logits",
    "llama_generate",
]


@pytest.mark.parametrize("case", CASES)
def test_ortmodel_on_the_drop_in_matches_real_ort(results, case):
    real, light = results["real"][case], results["light"][case]
    if case.endswith("_generate"):
        assert light == real  # greedy tokens, equal
        assert len(set(real[0])) > 3  # the random model's tokens vary
    else:  # float32 outputs: the same graphs, fused differently
        np.testing.assert_allclose(light, real, rtol=1e-4, atol=1e-5)
