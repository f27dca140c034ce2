"""onnx_light_ort: run ONNX Runtime custom-op plugins from Python without ONNX Runtime.

``CustomOpSession`` drives the C ABI of the bridge library
``onnx_light_ort::bridge_ops_ort_called_by_light`` through ctypes: the library inside the
installed package, or the build tree's when imported from the source checkout.
``plugin_library_path()`` is the other bridge: onnx-light's kernels as an ONNX Runtime
custom-op library; ``ort_c_api_library_path()`` is libonnxruntime.so.1, ORT's C API on
onnx-light, for programs written for ONNX Runtime in other languages. Models are ``onnx_light.onnx.ModelProto`` objects or their
serialized bytes; the onnx and onnxruntime packages are never imported.
"""

from __future__ import annotations

from ._session import (
    MAX_MODEL_BYTES,
    MAX_RANK,
    MAX_TENSOR_BYTES,
    CustomOpSession,
    bridge_library_path,
    ort_c_api_library_path,
    plugin_library_path,
)

__all__ = [
    "CustomOpSession",
    "MAX_MODEL_BYTES",
    "MAX_RANK",
    "MAX_TENSOR_BYTES",
    "bridge_library_path",
    "ort_c_api_library_path",
    "plugin_library_path",
]
