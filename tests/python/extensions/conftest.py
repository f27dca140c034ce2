"""The onnxruntime-extensions suite: ONNX Runtime + extensions runs as the oracle in a
worker process of its own (see _ext_oracle_worker.py for why)."""

from __future__ import annotations

import pytest
from _ext import Oracle, library_path


@pytest.fixture(scope="session")
def ext_library() -> str:
    return library_path()


@pytest.fixture(scope="session")
def oracle():
    o = Oracle()
    yield o
    o.close()
