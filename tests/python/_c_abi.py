"""The C ABI (libonnx_light.so) for the tests that call it with ctypes, as a C caller
would: the OnnxLightTensor and OnnxLightMap structs and the library with every function's
signature."""

from __future__ import annotations

import ctypes


class Tensor(ctypes.Structure):  # OnnxLightTensor (include/onnx_light/c_api.h)
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("data", ctypes.c_void_p),
        ("element_type", ctypes.c_int32),
        ("element_count", ctypes.c_uint64),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("internal", ctypes.c_void_p),
    ]


class Map(ctypes.Structure):  # OnnxLightMap
    _fields_ = [("name", ctypes.c_char_p), ("keys", Tensor), ("values", Tensor)]


def load_library() -> ctypes.CDLL:
    from onnx_light import _native_dir  # <build>/python/onnx_light

    lib = ctypes.CDLL(str(_native_dir().parents[1] / "lib" / "libonnx_light.so"))
    P, T = ctypes.c_void_p, ctypes.POINTER(Tensor)
    signatures = {  # name: (result, arguments)
        "OnnxLightSessionCreate": (
            ctypes.c_int32,
            [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(P)],
        ),
        "OnnxLightSessionCreateWithOptions": (
            ctypes.c_int32,
            [ctypes.c_char_p, ctypes.c_size_t, P, ctypes.POINTER(P)],
        ),
        "OnnxLightSessionCreateFromFileWithOptions": (
            ctypes.c_int32,
            [ctypes.c_char_p, P, ctypes.POINTER(P)],
        ),
        "OnnxLightSessionRelease": (None, [P]),
        "OnnxLightSessionOptionsCreate": (ctypes.c_int32, [ctypes.POINTER(P)]),
        "OnnxLightSessionOptionsRelease": (None, [P]),
        "OnnxLightSessionOptionsSetMemoryBudget": (ctypes.c_int32, [P, ctypes.c_uint64]),
        "OnnxLightSessionOptionsSetMaxTensorBytes": (ctypes.c_int32, [P, ctypes.c_uint64]),
        "OnnxLightSessionOptionsSetIntraOpThreads": (ctypes.c_int32, [P, ctypes.c_int32]),
        "OnnxLightSessionOptionsRegisterCustomOpsLibrary": (
            ctypes.c_int32,
            [P, ctypes.c_char_p, ctypes.c_int32],
        ),
        "OnnxLightRun": (ctypes.c_int32, [P, T, ctypes.c_size_t, T]),
        "OnnxLightTensorRelease": (None, [T]),
        "OnnxLightRunValues": (
            ctypes.c_int32,
            [P, T, ctypes.c_size_t, ctypes.POINTER(Map), ctypes.c_size_t, ctypes.POINTER(P), P],
        ),
        "OnnxLightValueKind": (ctypes.c_int32, [P]),
        "OnnxLightValueMapCount": (ctypes.c_size_t, [P]),
        "OnnxLightValueGetTensor": (ctypes.c_int32, [P, T]),
        "OnnxLightValueGetMap": (ctypes.c_int32, [P, ctypes.c_size_t, T, T]),
        "OnnxLightValueRelease": (None, [P]),
        "OnnxLightLastErrorMessage": (ctypes.c_char_p, []),
    }
    for name, (result, arguments) in signatures.items():
        getattr(lib, name).restype = result
        getattr(lib, name).argtypes = arguments
    return lib
