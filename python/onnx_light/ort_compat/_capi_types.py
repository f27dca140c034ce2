"""The names of ORT's ``onnxruntime.capi.onnxruntime_pybind11_state`` beyond sessions and
values: its enums (as Python IntEnums with ORT's member names and values), the device and
memory descriptions (``OrtDevice``, ``OrtMemoryInfo``: onnx-light's memory is the CPU's),
``OrtArenaCfg`` (accepted; onnx-light's buffers are its own), ``OrtValueVector``, and the
classes and functions of features onnx-light lacks: they exist, so that modules importing
them load (ORT's own test modules do), and using them raises ORT's ``NotImplemented``
naming the feature."""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Any, Iterator

from onnx_light.ort_compat._errors import unsupported


class _OrtEnum(IntEnum):
    """An IntEnum printed as ORT's (pybind11) enums print: ``Type.MEMBER``."""

    __str__ = Enum.__str__


class OrtMemType(_OrtEnum):
    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


class OrtAllocatorType(_OrtEnum):
    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1


class OrtMemoryInfoDeviceType(_OrtEnum):
    CPU = 0
    GPU = 1
    FPGA = 2
    NPU = 3


class OrtDeviceMemoryType(_OrtEnum):
    DEFAULT = 0
    HOST_ACCESSIBLE = 5


class OrtHardwareDeviceType(_OrtEnum):
    CPU = 0
    GPU = 1
    NPU = 2


class OrtExecutionProviderDevicePolicy(_OrtEnum):
    DEFAULT = 0
    PREFER_CPU = 1
    PREFER_NPU = 2
    PREFER_GPU = 3
    MAX_PERFORMANCE = 4
    MAX_EFFICIENCY = 5
    MIN_OVERALL_POWER = 6


class OrtCompiledModelCompatibility(_OrtEnum):
    EP_NOT_APPLICABLE = 0
    EP_SUPPORTED_OPTIMAL = 1
    EP_SUPPORTED_PREFER_RECOMPILATION = 2
    EP_UNSUPPORTED = 3


class OrtSparseFormat(_OrtEnum):
    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


class OrtCompileApiFlags(_OrtEnum):
    NONE = 0
    ERROR_IF_NO_NODES_COMPILED = 1
    ERROR_IF_OUTPUT_FILE_EXISTS = 2


class OrtDeviceEpIncompatibilityReason(_OrtEnum):
    NONE = 0
    DRIVER_INCOMPATIBLE = 1
    DEVICE_INCOMPATIBLE = 2
    MISSING_DEPENDENCY = 4
    UNKNOWN = -2147483648


class ArenaExtendStrategy(_OrtEnum):
    kNextPowerOfTwo = 0
    kSameAsRequested = 1


kNextPowerOfTwo = ArenaExtendStrategy.kNextPowerOfTwo
kSameAsRequested = ArenaExtendStrategy.kSameAsRequested


class OrtDevice:
    """A device as ORT describes one: type, memory type, vendor id, device id. Any can be
    described; onnx-light computes on the CPU only (values elsewhere are refused where
    they are made)."""

    def __init__(self, device_type: int, memory_type: int, vendor_id: int, device_id: int) -> None:
        self._fields = (int(device_type), int(memory_type), int(vendor_id), int(device_id))

    def device_type(self) -> int:
        return self._fields[0]

    def mem_type(self) -> int:
        return self._fields[1]

    def vendor_id(self) -> int:
        return self._fields[2]

    def device_id(self) -> int:
        return self._fields[3]


# The memory names ORT 1.30's OrtMemoryInfo constructor knows, with the vendor id and
# device memory type it gives each (others: RuntimeError, as ORT, which points at
# create_v2). "Cpu" is device 0 whatever id is given.
_MEMORY_NAMES = {
    "Cpu": (0, OrtDeviceMemoryType.DEFAULT),
    "Cuda": (0x10DE, OrtDeviceMemoryType.DEFAULT),
    "CudaPinned": (0x10DE, OrtDeviceMemoryType.HOST_ACCESSIBLE),
    "DML": (0x1414, OrtDeviceMemoryType.DEFAULT),
    "Hip": (0x1002, OrtDeviceMemoryType.DEFAULT),
    "HipPinned": (0x1002, OrtDeviceMemoryType.HOST_ACCESSIBLE),
    "OpenVINO_GPU": (0x8086, OrtDeviceMemoryType.DEFAULT),
    "OpenVINO_RT_NPU": (0x8086, OrtDeviceMemoryType.DEFAULT),
    "WebGPU_Buffer": (0, OrtDeviceMemoryType.DEFAULT),
    "WebGPU_Buf": (0, OrtDeviceMemoryType.DEFAULT),
    "WebNN_Tensor": (0, OrtDeviceMemoryType.DEFAULT),
}


# ORT's device type ids (several names share one) and its default memory type, as the
# static methods of ORT's OrtDevice (OrtDevice.cpu() == 0, ...).
_DEVICE_IDS = {
    "cpu": 0,
    "gpu": 1,
    "cuda": 1,
    "dml": 4,
    "webgpu": 1,
    "fpga": 2,
    "npu": 3,
    "cann": 3,
    "default_memory": 0,
}
for _name, _id in _DEVICE_IDS.items():
    setattr(OrtDevice, _name, staticmethod(lambda _id=_id: _id))
del _name, _id


class OrtMemoryInfo:
    """A memory as ORT names one: ``OrtMemoryInfo("Cpu", OrtAllocatorType.ORT_ARENA_ALLOCATOR,
    0, OrtMemType.DEFAULT)`` is onnx-light's (``InferenceSession.get_input_memory_infos``)."""

    def __init__(
        self, name: str, alloc_type: OrtAllocatorType, device_id: int, mem_type: OrtMemType
    ) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        if name not in _MEMORY_NAMES:
            raise RuntimeError("Specified device is not supported. Try CreateMemoryInfo_V2.")
        self._name = "WebGPU_Buf" if name == "WebGPU_Buffer" else name  # ORT's short name
        self._allocator_type = OrtAllocatorType(alloc_type)
        self._device_id = 0 if name == "Cpu" else int(device_id)  # the CPU is device 0
        self._mem_type = OrtMemType(mem_type)
        self._vendor_id, self._device_mem_type = _MEMORY_NAMES[name]

    @staticmethod
    def create_v2(
        name: str,
        device_type: OrtMemoryInfoDeviceType,
        vendor_id: int,
        device_id: int,
        device_mem_type: OrtDeviceMemoryType,
        alignment: int,
        allocator_type: OrtAllocatorType,
    ) -> "OrtMemoryInfo":
        info = OrtMemoryInfo.__new__(OrtMemoryInfo)
        info._name = name
        info._allocator_type = OrtAllocatorType(allocator_type)
        info._device_id = int(device_id)
        info._mem_type = OrtMemType.DEFAULT
        info._device_mem_type = OrtDeviceMemoryType(device_mem_type)
        info._vendor_id = int(vendor_id)
        return info

    name = property(lambda self: self._name)
    allocator_type = property(lambda self: self._allocator_type)
    device_id = property(lambda self: self._device_id)
    mem_type = property(lambda self: self._mem_type)
    device_mem_type = property(lambda self: self._device_mem_type)
    device_vendor_id = property(lambda self: self._vendor_id)


def cpu_memory_info() -> OrtMemoryInfo:
    """onnx-light's memory, as ORT's CPU execution provider describes its inputs' memory."""
    return OrtMemoryInfo("Cpu", OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, OrtMemType.DEFAULT)


class OrtArenaCfg:
    """ORT's arena settings: ``OrtArenaCfg(max_mem, arena_extend_strategy,
    initial_chunk_size_bytes, max_dead_bytes_per_chunk)`` or ``OrtArenaCfg({key: value})``.
    Kept as given; onnx-light's buffers are its own, so they change nothing."""

    _KEYS = (
        "max_mem",
        "arena_extend_strategy",
        "initial_chunk_size_bytes",
        "max_dead_bytes_per_chunk",
        "initial_growth_chunk_size_bytes",
        "max_power_of_two_extend_bytes",
    )

    def __init__(self, *args: Any) -> None:
        values = dict.fromkeys(self._KEYS, -1)
        values["max_mem"] = 0
        if len(args) == 1 and isinstance(args[0], dict):
            for key, value in args[0].items():
                if key not in values:
                    raise ValueError(f"OrtArenaCfg: unknown key {key!r}")
                values[key] = int(value)
        elif len(args) == 4:
            for key, value in zip(self._KEYS, args):
                values[key] = int(value)
        else:
            raise TypeError("OrtArenaCfg takes four integers or one dict")
        self.__dict__.update(values)


class OrtValueVector:
    """A vector of OrtValues (ORT's C++ vector): push_back, reserve, len, indexing, iteration,
    each element's ONNX element type. The DLPack conversions are not provided."""

    def __init__(self) -> None:
        self._values: list = []

    def push_back(self, value: Any, is_bool_tensor: bool = False) -> None:
        from onnx_light.ort_compat._ortvalue import OrtValue

        if not isinstance(value, OrtValue):
            raise unsupported("OrtValueVector.push_back(dlpack)", "DLPack is not supported")
        self._values.append(value)

    def push_back_batch(self, *args: Any) -> None:
        raise unsupported("OrtValueVector.push_back_batch", "DLPack is not supported")

    def reserve(self, n: int) -> None:
        if int(n) < 0:
            raise ValueError("reserve: n must not be negative")

    def shrink_to_fit(self) -> None:
        pass

    def element_type_at(self, idx: int) -> int:
        return self._values[idx].element_type()

    def bool_tensor_indices(self) -> list[int]:
        return [i for i, v in enumerate(self._values) if v.data_type() == "tensor(bool)"]

    def dlpack_at(self, idx: int) -> Any:
        raise unsupported("OrtValueVector.dlpack_at", "DLPack is not supported")

    def to_dlpacks(self, *args: Any) -> Any:
        raise unsupported("OrtValueVector.to_dlpacks", "DLPack is not supported")

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, idx: int) -> Any:
        return self._values[idx]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)


class _Refusing(type):
    """The metaclass of a placeholder: the class exists (importable, usable in isinstance
    and annotations); creating one or reaching for its members raises."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise unsupported(f"onnxruntime.{cls.__name__}", cls._why)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported(f"onnxruntime.{cls.__name__}.{name}", cls._why)


def placeholder_class(name: str, why: str) -> type:
    return _Refusing(name, (), {"_why": why, "__doc__": f"Not supported by onnx-light: {why}."})


def placeholder_function(name: str, why: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise unsupported(f"onnxruntime.{name}", why)

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not supported by onnx-light: {why}."
    return refuse


ENUMS = (
    OrtMemType,
    OrtAllocatorType,
    OrtMemoryInfoDeviceType,
    OrtDeviceMemoryType,
    OrtHardwareDeviceType,
    OrtExecutionProviderDevicePolicy,
    OrtCompiledModelCompatibility,
    OrtSparseFormat,
    OrtCompileApiFlags,
    OrtDeviceEpIncompatibilityReason,
    ArenaExtendStrategy,
)
