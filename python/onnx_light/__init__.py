"""onnx-light: a small, fast ONNX runtime for the CPU.

Installed from a wheel (``pip install``), the native extension ``_core`` sits in this
package. Imported from the source checkout (``PYTHONPATH=python``), it is found in the build
tree instead: ``build/python/onnx_light`` by default, or ``$ONNX_LIGHT_BUILD_DIR``, so several
build directories can share one checkout.
"""

import os


def _native_dir():
    """The build tree's folder of the native extension (a pathlib.Path)."""
    from pathlib import Path

    build = os.environ.get("ONNX_LIGHT_BUILD_DIR")
    root = Path(build) if build else Path(__file__).resolve().parents[2] / "build"
    return root / "python" / "onnx_light"


def _installed() -> bool:
    # os, not pathlib: an installed package imports no more than it needs.
    here = os.path.dirname(os.path.realpath(__file__))
    return any(
        n == "_core.so" or (n.startswith("_core.") and n.endswith(".so")) for n in os.listdir(here)
    )


if not _installed():
    __path__.append(str(_native_dir()))

try:
    from . import _core  # noqa: E402
except ImportError as exc:  # pragma: no cover - exercised only on a broken checkout
    raise ImportError(
        f"onnx_light's native extension was not found in {_native_dir()}: build it with "
        "scripts/build.sh, or point ONNX_LIGHT_BUILD_DIR at your build directory"
    ) from exc

# ONNX Runtime's names (onnx_light.ort_compat) are imported when first used: a program
# that only runs RuntimeSession does not pay for the drop-in's modules.
_ORT_NAMES = (
    "ExecutionMode",
    "GraphOptimizationLevel",
    "InferenceSession",
    "SessionOptions",
    "disable_telemetry_events",
    "enable_telemetry_events",
    "get_available_providers",
    "get_build_info",
    "get_device",
    "get_version_string",
    "set_default_logger_severity",
)


def __getattr__(name: str):
    if name in _ORT_NAMES:
        from . import ort_compat

        value = getattr(ort_compat, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .runtime import ModelMetadata, NodeArg, OpTypeTime, RunOptions, RuntimeSession  # noqa: E402

# One version number: project(VERSION) in CMakeLists.txt, compiled into _core (and read
# from there by pyproject.toml for the wheel).
__version__: str = _core.__version__
__all__ = [
    "ExecutionMode",
    "GraphOptimizationLevel",
    "InferenceSession",
    "ModelMetadata",
    "NodeArg",
    "OpTypeTime",
    "RunOptions",
    "RuntimeSession",
    "SessionOptions",
    "__version__",
    "get_available_providers",
    "get_device",
    "disable_telemetry_events",
    "enable_telemetry_events",
    "get_build_info",
    "get_version_string",
    "set_default_logger_severity",
]
