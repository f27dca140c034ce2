"""A drop-in for code written for ``onnxruntime``: its Python API names, signatures and
behaviour over :class:`onnx_light.RuntimeSession` (docs/ort_drop_in.md lists every name).

Two ways to use it:

* change ``import onnxruntime as ort`` to ``import onnx_light.ort_compat as ort``; or
* leave the program unchanged and run it with ``python -m onnx_light.ort_compat SCRIPT
  [ARGS]`` (or ``-m MODULE``), or call :func:`install` before it imports ``onnxruntime``:
  ``import onnxruntime`` and ``onnxruntime.capi...`` then resolve to this package.
"""

from onnx_light.ort_compat._errors import (
    DeviceReset,
    EngineError,
    EPFail,
    Fail,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoadCanceled,
    ModelLoaded,
    ModelRequiresCompilation,
    NoModel,
    NoSuchFile,
    NotFound,
    NotImplemented,
    RuntimeException,
)
from onnx_light.ort_compat._install import install, installed, uninstall
from onnx_light.ort_compat._ortvalue import IOBinding, OrtValue
from onnx_light.ort_compat._session import (
    ExecutionMode,
    ExecutionOrder,
    GraphOptimizationLevel,
    InferenceSession,
    SessionOptions,
    disable_telemetry_events,
    enable_telemetry_events,
    get_all_providers,
    get_available_providers,
    get_build_info,
    get_device,
    get_version_string,
    set_default_logger_severity,
    set_default_logger_verbosity,
    set_seed,
)
from onnx_light.runtime import ModelMetadata, NodeArg, RunOptions

__version__ = get_version_string()
version = __version__

__all__ = [
    "DeviceReset",
    "EPFail",
    "EngineError",
    "ExecutionMode",
    "ExecutionOrder",
    "Fail",
    "GraphOptimizationLevel",
    "IOBinding",
    "InferenceSession",
    "InvalidArgument",
    "InvalidGraph",
    "InvalidProtobuf",
    "ModelLoadCanceled",
    "ModelLoaded",
    "ModelMetadata",
    "ModelRequiresCompilation",
    "NoModel",
    "NoSuchFile",
    "NodeArg",
    "NotFound",
    "NotImplemented",
    "OrtValue",
    "RunOptions",
    "RuntimeException",
    "SessionOptions",
    "disable_telemetry_events",
    "enable_telemetry_events",
    "get_all_providers",
    "get_available_providers",
    "get_build_info",
    "get_device",
    "get_version_string",
    "install",
    "installed",
    "set_default_logger_severity",
    "set_default_logger_verbosity",
    "set_seed",
    "uninstall",
    "version",
]
