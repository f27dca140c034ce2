"""The bridge's Python suite runs in its own process (ctest label
bridge_ops_ort_called_by_light), so it can assert that neither onnxruntime nor the onnx
package is ever imported: the host executes the plugins by itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# onnx-light's own ORT plugin runs under the host only in builds that make it (ctest sets
# this to 0 when ONNX_LIGHT_BUILD_ORT_PLUGIN is OFF; see the CMakeLists beside the tests).
collect_ignore = []
if os.environ.get("ONNX_LIGHT_ORT_PLUGIN_BUILT", "1") == "0":
    collect_ignore.append("test_plugin_under_host.py")
BUILD = Path(os.environ.get("ONNX_LIGHT_BUILD_DIR", REPO / "build"))
LIB = BUILD / "lib"


def _forbidden():
    return sorted(m for m in ("onnx", "onnxruntime") if m in sys.modules)


@pytest.fixture(autouse=True)
def neither_onnx_nor_onnxruntime_imported():
    assert _forbidden() == [], "imported before the test"
    yield
    assert _forbidden() == [], "the test imported onnx or onnxruntime"


@pytest.fixture(scope="session")
def example_plugin() -> Path:
    path = LIB / "libort_custom_ops.so"
    if not path.exists():
        pytest.fail(f"{path} is missing: build with scripts/build.sh")
    return path


@pytest.fixture(scope="session")
def test_plugin():
    def path(variant: str) -> Path:
        p = LIB / "test_plugins" / f"libtest_plugin_{variant}.so"
        if not p.exists():
            pytest.fail(f"{p} is missing: build with scripts/build.sh")
        return p

    return path
