"""CustomOpSession over the bridge's C ABI (see host.h)."""

from __future__ import annotations

import ctypes
import os
import threading
import weakref
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from onnx_light.onnx import ModelProto

MAX_MODEL_BYTES = 16 << 20
MAX_TENSOR_BYTES = 64 << 20
MAX_RANK = 16

_LIBRARY_NAME = "libonnx_light_ort_bridge_ops_ort_called_by_light.so"

# ONNX element type -> numpy dtype, for the four types the host supports.
_DTYPES = {
    10: np.dtype(np.float16),
    16: np.dtype(ml_dtypes.bfloat16),
    1: np.dtype(np.float32),
    11: np.dtype(np.float64),
}


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("element_type", ctypes.c_int32),
        ("element_count", ctypes.c_uint64),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("internal", ctypes.c_void_p),
    ]


_PLUGIN_LIBRARY_NAME = "libonnx_light_ort_bridge_ops_light_called_by_ort.so"


def _library_dir() -> Path:
    """Where the bridge libraries are: the package's ``lib`` folder when installed from a
    wheel, else the build tree ($ONNX_LIGHT_BUILD_DIR, default <repo>/build)."""
    installed = Path(__file__).resolve().parent / "lib"
    if (installed / _LIBRARY_NAME).exists():
        return installed
    build = os.environ.get("ONNX_LIGHT_BUILD_DIR")
    root = Path(build) if build else Path(__file__).resolve().parents[2] / "build"
    return root / "lib"


def bridge_library_path() -> Path:
    """The plugin host library that CustomOpSession drives (ORT custom ops called by
    onnx-light)."""
    return _library_dir() / _LIBRARY_NAME


def _built_library(name: str, what: str) -> str:
    """The path of a library of the package (or of the build tree); a RuntimeError naming
    it when it is missing (a checkout that was not built)."""
    path = _library_dir() / name
    if not path.exists():
        raise RuntimeError(
            f"onnx-light's {what} is missing: {path} (build it with "
            "scripts/build.sh or point ONNX_LIGHT_BUILD_DIR at your build directory)"
        )
    return str(path)


def plugin_library_path() -> str:
    """The ONNX Runtime custom-op library of onnx-light's kernels (onnx-light kernels
    called by ORT), for ``onnxruntime.SessionOptions.register_custom_ops_library``.

    Raises RuntimeError when it is missing (a checkout that was not built)."""
    return _built_library(_PLUGIN_LIBRARY_NAME, "ORT plugin library")


_ORT_C_API_LIBRARY_NAME = "libonnxruntime.so.1"


def ort_c_api_library_path() -> str:
    """libonnxruntime.so.1 built from onnx-light: ORT's C API (OrtGetApiBase, the 425 slots
    of API 29) on the onnx-light runtime, for programs written for ONNX Runtime in C, C++,
    Rust, Node.js, Java or Go (docs/ort_c_api.md): put its folder first in LD_LIBRARY_PATH,
    or give the path to the binding (ORT_DYLIB_PATH for Rust's ``ort``,
    ``-Donnxruntime.native.onnxruntime.path`` for Java, ``ort.SetSharedLibraryPath`` for Go).

    Raises RuntimeError when it is missing (a checkout that was not built)."""
    return _built_library(_ORT_C_API_LIBRARY_NAME, "libonnxruntime.so.1")


_lib_lock = threading.Lock()
_lib: ctypes.CDLL | None = None


def _library() -> ctypes.CDLL:
    global _lib
    with _lib_lock:
        if _lib is None:
            path = bridge_library_path()
            if not path.exists():
                raise RuntimeError(
                    f"the bridge library is missing: {path} (build it with scripts/build.sh "
                    "or point ONNX_LIGHT_BUILD_DIR at your build directory)"
                )
            lib = ctypes.CDLL(str(path))
            lib.LightOrtSessionCreate.argtypes = [
                ctypes.c_char_p,
                ctypes.c_void_p,
                ctypes.c_size_t,
                ctypes.POINTER(ctypes.c_void_p),
            ]
            lib.LightOrtSessionCreate.restype = ctypes.c_int32
            lib.LightOrtSessionRelease.argtypes = [ctypes.c_void_p]
            lib.LightOrtSessionRelease.restype = None
            lib.LightOrtSessionElementType.argtypes = [ctypes.c_void_p]
            lib.LightOrtSessionElementType.restype = ctypes.c_int32
            lib.LightOrtRunTyped.argtypes = [
                ctypes.c_void_p,
                ctypes.c_void_p,
                ctypes.c_int32,
                ctypes.c_uint64,
                ctypes.POINTER(ctypes.c_int64),
                ctypes.c_size_t,
                ctypes.POINTER(_Tensor),
            ]
            lib.LightOrtRunTyped.restype = ctypes.c_int32
            lib.LightOrtTensorRelease.argtypes = [ctypes.POINTER(_Tensor)]
            lib.LightOrtTensorRelease.restype = None
            lib.LightOrtLastErrorMessage.argtypes = []
            lib.LightOrtLastErrorMessage.restype = ctypes.c_char_p
            _lib = lib
        return _lib


def _raise(lib: ctypes.CDLL, code: int, plugin_path: str | None = None) -> None:
    message = lib.LightOrtLastErrorMessage().decode("utf-8", "replace")
    if code == 4 and plugin_path is not None and not os.path.exists(plugin_path):
        raise FileNotFoundError(message)
    if code in (1, 3, 4, 6):  # invalid argument, out of range, not found, invalid model
        # NOT_FOUND of an existing library: it does not export RegisterCustomOps.
        raise ValueError(message)
    if code == 2:
        raise TypeError(message)
    raise RuntimeError(message)


def _release(lib: ctypes.CDLL, handle: int) -> None:
    # Releases the kernels first, then unloads the plugin (the C side's order).
    lib.LightOrtSessionRelease(handle)


class CustomOpSession:
    """A session over one ORT custom-op plugin and a one-node model.

    ``plugin_path`` is the plugin library (str, bytes or os.PathLike, encoded with
    ``os.fsencode``; resolved to an absolute path before loading; no search path): a
    missing file is a FileNotFoundError, a library without ``RegisterCustomOps`` a
    ValueError. ``model`` is an ``onnx_light.onnx.ModelProto`` or its serialized bytes.
    Runs and ``close`` are serialized; inputs are copied (the plugin API hands out mutable
    pointers), outputs are independent numpy arrays.
    """

    def __init__(self, plugin_path: str | os.PathLike, model: ModelProto | bytes):
        if not isinstance(plugin_path, (str, bytes, os.PathLike)):
            raise TypeError(f"plugin_path must be a path, got {type(plugin_path).__name__}")
        path = os.fsdecode(os.fspath(plugin_path))
        if not path:
            raise ValueError("plugin_path is empty")
        resolved = os.path.realpath(path)
        if isinstance(model, ModelProto):
            size = model.ByteSize()
            if size > MAX_MODEL_BYTES:
                raise ValueError(
                    f"model of {size} bytes exceeds the limit of {MAX_MODEL_BYTES} bytes "
                    "(checked before parsing)"
                )
            data = model.SerializeToString()
        elif isinstance(model, (bytes, bytearray, memoryview)):
            size = memoryview(model).nbytes  # bytes, whatever the item size
            if size > MAX_MODEL_BYTES:
                raise ValueError(
                    f"model of {size} bytes exceeds the limit of {MAX_MODEL_BYTES} bytes "
                    "(checked before parsing)"
                )
            data = memoryview(model).tobytes()
        else:
            raise TypeError(
                f"model must be an onnx_light.onnx.ModelProto or bytes, got {type(model).__name__}"
            )
        lib = _library()
        handle = ctypes.c_void_p()
        code = lib.LightOrtSessionCreate(
            os.fsencode(resolved), data, len(data), ctypes.byref(handle)
        )
        if code != 0:
            _raise(lib, code, resolved)
        self._lib = lib
        self._handle = handle.value
        self._lock = threading.Lock()
        self._element_type = lib.LightOrtSessionElementType(self._handle)
        self._dtype = _DTYPES[self._element_type]
        self._finalizer = weakref.finalize(self, _release, lib, self._handle)

    @property
    def dtype(self) -> np.dtype:
        """The element type of the model's input and output."""
        return self._dtype

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def run(self, x: Any) -> np.ndarray:
        """Runs the model on ``x`` and returns a new array of the same dtype.

        ``x`` must be a numpy array whose dtype is exactly the model's (it is never
        converted): TypeError otherwise. Rank above 16 or more than 64 MiB of data is a
        ValueError, checked before the array is copied.
        """
        if not isinstance(x, np.ndarray):
            raise TypeError(f"expected a numpy array, got {type(x).__name__}")
        if x.dtype != self._dtype:
            raise TypeError(
                f"input dtype {x.dtype} does not match the model's {self._dtype}; "
                "convert it explicitly"
            )
        if x.ndim > MAX_RANK:
            raise ValueError(
                f"input rank {x.ndim} exceeds the limit of {MAX_RANK} (checked before copying)"
            )
        if x.nbytes > MAX_TENSOR_BYTES:
            raise ValueError(
                f"input of {x.nbytes} bytes exceeds the limit of {MAX_TENSOR_BYTES} bytes "
                "(checked before copying)"
            )
        with self._lock:
            if self.closed:
                raise RuntimeError("the session is closed")
            copy = np.array(x, dtype=self._dtype, order="C", copy=True)
            shape = (ctypes.c_int64 * max(copy.ndim, 1))(*copy.shape)
            out = _Tensor()
            code = self._lib.LightOrtRunTyped(
                self._handle,
                copy.ctypes.data,
                self._element_type,
                copy.size,
                shape,
                copy.ndim,
                ctypes.byref(out),
            )
            if code != 0:
                _raise(self._lib, code)
            try:
                dims = tuple(out.shape[i] for i in range(out.rank))
                count = int(out.element_count)
                result = np.empty(dims, dtype=self._dtype)
                if count:
                    ctypes.memmove(result.ctypes.data, out.data, count * self._dtype.itemsize)
            finally:
                self._lib.LightOrtTensorRelease(ctypes.byref(out))
            return result

    def close(self) -> None:
        """Releases the plugin's kernels, then unloads the plugin. Idempotent."""
        with self._lock:
            self._finalizer()

    def __enter__(self) -> CustomOpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
