"""The genai suite's fixture: the model-builder folders (scripts/genai_folders.sh makes
them once per machine, with a test-only venv that has torch, transformers and
onnxruntime-genai). The helpers are in _genai.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from _genai import make_folders


@pytest.fixture(scope="session")
def genai_folders() -> Path:
    """The folder holding ARCH-fp32 and ARCH-int4 for each of _genai.ARCHS."""
    folders, err = make_folders()
    if folders is None:
        pytest.fail(
            "scripts/genai_folders.sh failed (it installs requirements/genai.txt from PyPI into "
            f"a cached venv and runs the GenAI model builder):\n{err}"
        )
    return folders
