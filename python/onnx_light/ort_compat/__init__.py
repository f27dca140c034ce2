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
cuda_version = ""  # as ORT's CPU package: no CUDA
package_name = "onnxruntime"  # the package this stands in for (its CPU build)


def preload_dlls(*args: object, **kwargs: object) -> None:
    """ORT's loader of CUDA/cuDNN libraries: onnx-light needs none; nothing to load."""


def has_collective_ops() -> bool:
    return False


def print_debug_info() -> None:
    """Prints what this drop-in is: onnx-light's build, the ORT API level it follows."""
    print(get_build_info())


# ORT names onnx-light does not provide, with why: ``onnxruntime.X`` raises an
# AttributeError saying so (an AttributeError, so ``hasattr`` feature checks keep working).
_DEVICE = "device memory and execution-provider devices do not exist here: onnx-light runs on the CPU only"
NOT_SUPPORTED = {
    "SparseTensor": "sparse tensors do not exist at run time in onnx-light",
    "LoraAdapter": "LoRA adapters are not supported; merge the adapter into the weights",
    "AdapterFormat": "LoRA adapters are not supported",
    "ModelCompiler": "compiled (EPContext) models are not supported",
    "OrtCompileApiFlags": "compiled (EPContext) models are not supported",
    "SessionIOBinding": "ORT's internal binding class; use InferenceSession.io_binding()",
    "register_execution_provider_library": "plugin execution providers are not supported "
    "(custom-op libraries are: SessionOptions.register_custom_ops_library)",
    "unregister_execution_provider_library": "plugin execution providers are not supported",
    "set_global_thread_pool_sizes": "each session owns its thread pool (intra_op_num_threads)",
    "create_and_register_allocator": "onnx-light uses its own allocator",
    "create_and_register_allocator_v2": "onnx-light uses its own allocator",
    "copy_tensors": _DEVICE,
    "get_ep_devices": _DEVICE,
    **{
        name: _DEVICE
        for name in (
            "OrtDevice",
            "OrtDeviceMemoryType",
            "OrtDeviceVendorId",
            "OrtEpDevice",
            "OrtEpAssignedNode",
            "OrtEpAssignedSubgraph",
            "OrtExecutionProviderDevicePolicy",
            "OrtHardwareDevice",
            "OrtHardwareDeviceType",
            "OrtMemoryInfo",
            "OrtMemoryInfoDeviceType",
            "OrtMemType",
            "OrtAllocatorType",
            "OrtArenaCfg",
            "OrtSyncStream",
            "OrtExternalInitializerInfo",
            "OrtSparseFormat",
        )
    },
}


def __getattr__(name: str) -> object:
    why = NOT_SUPPORTED.get(name)
    if why is not None:
        raise AttributeError(f"onnxruntime.{name} is not supported by onnx-light: {why}", name=name)
    raise AttributeError(f"module 'onnx_light.ort_compat' has no attribute {name!r}", name=name)


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
    "has_collective_ops",
    "install",
    "installed",
    "preload_dlls",
    "print_debug_info",
    "set_default_logger_severity",
    "set_default_logger_verbosity",
    "set_seed",
    "uninstall",
    "cuda_version",
    "package_name",
    "version",
]
