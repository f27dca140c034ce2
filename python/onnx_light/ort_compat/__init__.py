"""A drop-in for code written for ``onnxruntime``: its Python API names, signatures and
behaviour over :class:`onnx_light.RuntimeSession` (docs/ort_drop_in.md lists every name).

Two ways to use it:

* change ``import onnxruntime as ort`` to ``import onnx_light.ort_compat as ort``; or
* leave the program unchanged and run it with ``python -m onnx_light.ort_compat SCRIPT
  [ARGS]`` (or ``-m MODULE``), or call :func:`install` before it imports ``onnxruntime``:
  ``import onnxruntime`` and ``onnxruntime.capi...`` then resolve to this package.
"""

from onnx_light.ort_compat._capi_types import (
    ArenaExtendStrategy,
    OrtAllocatorType,
    OrtArenaCfg,
    OrtCompileApiFlags,
    OrtCompiledModelCompatibility,
    OrtDevice,
    OrtDeviceEpIncompatibilityReason,
    OrtDeviceMemoryType,
    OrtExecutionProviderDevicePolicy,
    OrtHardwareDeviceType,
    OrtMemoryInfo,
    OrtMemoryInfoDeviceType,
    OrtMemType,
    OrtSparseFormat,
    OrtValueVector,
    kNextPowerOfTwo,
    kSameAsRequested,
    placeholder_class,
    placeholder_function,
)
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
    set_global_thread_pool_sizes,
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


# ORT names onnx-light does not provide, with why. Each exists (modules that import it
# load: ORT's own test modules import several at module level) as a class or function
# whose use raises ORT's NotImplemented saying so.
_DEVICE = "device memory and execution-provider devices do not exist here: onnx-light runs on the CPU only"
NOT_SUPPORTED = {
    "SparseTensor": "sparse tensors do not exist at run time in onnx-light",
    "LoraAdapter": "LoRA adapters are not supported; merge the adapter into the weights",
    "AdapterFormat": "LoRA adapters are not supported",
    "ModelCompiler": "compiled (EPContext) models are not supported",
    "SessionIOBinding": "ORT's internal binding class; use InferenceSession.io_binding()",
    "register_execution_provider_library": "plugin execution providers are not supported "
    "(custom-op libraries are: SessionOptions.register_custom_ops_library)",
    "unregister_execution_provider_library": "plugin execution providers are not supported",
    "create_and_register_allocator": "onnx-light uses its own allocator",
    "create_and_register_allocator_v2": "onnx-light uses its own allocator",
    "copy_tensors": _DEVICE,
    "get_ep_devices": _DEVICE,
    # ORT's internals and tools in its capi module: schemas and kernel definitions, the
    # weight quantizers of its Python quantization tool, compiled-model compatibility.
    "SessionObjectInitializer": "ORT's internal session initializer",
    "get_session_initializer": "ORT's internal session initializer",
    "get_default_session_options": "ORT's internal default options; use SessionOptions()",
    "get_all_operator_schema": "ORT's operator schemas are ORT's (onnx-light's kernels: "
    "docs/conformance.md)",
    "get_all_opkernel_def": "ORT's kernel definitions are ORT's",
    "get_registered_ep_kernel_defs": "ORT's kernel definitions are ORT's",
    "is_dlpack_uint8_tensor": "DLPack is not supported",
    "get_compatibility_info_from_model": "compiled (EPContext) models are not supported",
    "get_compatibility_info_from_model_bytes": "compiled (EPContext) models are not supported",
    "get_model_compatibility_for_ep_devices": "compiled (EPContext) models are not supported",
    **{
        name: "ORT's quantization tool's weight quantizers are not provided (its quantized "
        "models run: MatMulNBits, QDQ)"
        for name in (
            "quantize_matmul_2bits",
            "quantize_matmul_4bits",
            "quantize_matmul_8bits",
            "quantize_matmul_bnb4",
            "quantize_qdq_matmul_2bits",
            "quantize_qdq_matmul_4bits",
            "pack_fp4_weights_for_cuda_moe_gemm",
        )
    },
    **{
        name: "sparse tensors do not exist at run time in onnx-light"
        for name in ("SparseCooView", "SparseCsrView", "SparseBlockSparseView")
    },
    **{
        name: _DEVICE
        for name in (
            "get_hardware_devices",
            "get_hardware_device_ep_incompatibility_details",
            "OrtDeviceVendorId",
            "OrtEpDevice",
            "OrtEpAssignedNode",
            "OrtEpAssignedSubgraph",
            "OrtHardwareDevice",
            "OrtSyncStream",
            "OrtExternalInitializerInfo",
        )
    },
}
for _name, _why in NOT_SUPPORTED.items():
    globals()[_name] = (placeholder_class if _name[0].isupper() else placeholder_function)(
        _name, _why
    )
del _name, _why


def __getattr__(name: str) -> object:
    raise AttributeError(
        f"module 'onnxruntime' (onnx-light's drop-in) has no attribute {name!r}", name=name
    )


__all__ = [
    *NOT_SUPPORTED,
    "ArenaExtendStrategy",
    "OrtAllocatorType",
    "OrtArenaCfg",
    "OrtCompileApiFlags",
    "OrtCompiledModelCompatibility",
    "OrtDevice",
    "OrtDeviceEpIncompatibilityReason",
    "OrtDeviceMemoryType",
    "OrtExecutionProviderDevicePolicy",
    "OrtHardwareDeviceType",
    "OrtMemType",
    "OrtMemoryInfo",
    "OrtMemoryInfoDeviceType",
    "OrtSparseFormat",
    "OrtValueVector",
    "kNextPowerOfTwo",
    "kSameAsRequested",
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
    "set_global_thread_pool_sizes",
    "set_seed",
    "uninstall",
    "cuda_version",
    "package_name",
    "version",
]
