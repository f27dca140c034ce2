"""onnx-light: a small, fast ONNX runtime for the CPU.

The package is imported from the source checkout; its native extension ``_core`` lives in
the build tree (``build/python/onnx_light`` by default, or ``$ONNX_LIGHT_BUILD_DIR``), so
several build directories can share one checkout and nothing is installed.
"""

import os
from pathlib import Path


def _native_dir() -> Path:
    build = os.environ.get("ONNX_LIGHT_BUILD_DIR")
    root = Path(build) if build else Path(__file__).resolve().parents[2] / "build"
    return root / "python" / "onnx_light"


__path__.append(str(_native_dir()))

try:
    from . import _core  # noqa: E402
except ImportError as exc:  # pragma: no cover - exercised only on a broken checkout
    raise ImportError(
        f"onnx_light's native extension was not found in {_native_dir()}: build it with "
        "scripts/build.sh, or point ONNX_LIGHT_BUILD_DIR at your build directory"
    ) from exc

from .ort_compat import (  # noqa: E402
    GraphOptimizationLevel,
    InferenceSession,
    SessionOptions,
    get_available_providers,
)
from .runtime import NodeArg, OpTypeTime, RunOptions, RuntimeSession  # noqa: E402

__version__ = "0.1.0"
__all__ = [
    "GraphOptimizationLevel",
    "InferenceSession",
    "NodeArg",
    "OpTypeTime",
    "RunOptions",
    "RuntimeSession",
    "SessionOptions",
    "__version__",
    "get_available_providers",
]
