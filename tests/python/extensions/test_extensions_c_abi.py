"""Session-level registration through the C ABI (libonnx_light.so with ctypes, as a C
caller would): OnnxLightSessionOptionsRegisterCustomOpsLibrary in the extensions profile,
then a model mixing a standard op and onnxruntime-extensions' Inverse, equal to the
oracle (ONNX Runtime + extensions, its own process); the refusals. Each in a process of its
own: libonnx_light.so is another host than the Python module's, and the library keeps the
last host's table process-wide (one host per process)."""

from __future__ import annotations

import ctypes

import numpy as np
from _c_abi import Tensor, load_library
from _ext import CONTRIB

from onnx_light.onnx import TensorProto, helper

OK, INVALID_ARGUMENT, NOT_FOUND = 0, 1, 4
EXTENSIONS = 1  # ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS


def inverse_model():
    """x [2, 2] -> Add(x, x) (ai.onnx) -> Inverse (extensions) -> y = (2x)^-1."""
    F = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["x", "x"], ["twice"]),
            helper.make_node("Inverse", ["twice"], ["y"], domain=CONTRIB),
        ],
        "g",
        [helper.make_tensor_value_info("x", F, [2, 2])],
        [helper.make_tensor_value_info("y", F, None)],
    )
    imports = [helper.make_opsetid("", 17), helper.make_opsetid(CONTRIB, 1)]
    return helper.make_model(graph, opset_imports=imports)


def _in_child(function: str, *args) -> str:
    """Runs this module's `function(*args)` in a fresh interpreter; returns its stdout."""
    import os
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    code = (
        f"import sys; sys.path[:0] = {[here] + sys.path!r}; "
        f"import test_extensions_c_abi as t; t.{function}(*{args!r})"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def c_caller_run(ext_library: str) -> None:
    lib = load_library()
    opts = ctypes.c_void_p()
    assert lib.OnnxLightSessionOptionsCreate(ctypes.byref(opts)) == OK
    rc = lib.OnnxLightSessionOptionsRegisterCustomOpsLibrary(opts, ext_library.encode(), EXTENSIONS)
    assert rc == OK, lib.OnnxLightLastErrorMessage()
    data = inverse_model().SerializeToString()
    session = ctypes.c_void_p()
    assert lib.OnnxLightSessionCreateWithOptions(data, len(data), opts, ctypes.byref(session)) == OK
    lib.OnnxLightSessionOptionsRelease(opts)  # the session keeps the library loaded
    x = np.array([[4.0, 7.0], [2.0, 6.0]], np.float32)
    shape = (ctypes.c_int64 * 2)(2, 2)
    feed = Tensor(b"x", x.ctypes.data, TensorProto.FLOAT, 4, 2, shape, None)
    out = Tensor()
    assert lib.OnnxLightRun(session, ctypes.byref(feed), 1, ctypes.byref(out)) == OK
    got = np.ctypeslib.as_array(ctypes.cast(out.data, ctypes.POINTER(ctypes.c_float)), (4,))
    print(got.tolist())
    lib.OnnxLightTensorRelease(ctypes.byref(out))
    lib.OnnxLightSessionRelease(session)


def test_a_c_caller_registers_extensions_for_its_sessions(oracle, ext_library):
    import json

    got = np.array(json.loads(_in_child("c_caller_run", ext_library)), np.float32).reshape(2, 2)
    x = np.array([[4.0, 7.0], [2.0, 6.0]], np.float32)
    want = oracle.run(inverse_model(), {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, np.linalg.inv(2 * x), rtol=1e-5)


def c_refusals(ext_library: str, missing: str) -> None:
    lib = load_library()
    opts = ctypes.c_void_p()
    assert lib.OnnxLightSessionOptionsCreate(ctypes.byref(opts)) == OK
    register = lib.OnnxLightSessionOptionsRegisterCustomOpsLibrary
    assert register(opts, ext_library.encode(), 0) == INVALID_ARGUMENT
    assert "ONNX_LIGHT_PLUGIN_PROFILE_EXTENSIONS" in lib.OnnxLightLastErrorMessage().decode()
    assert register(opts, missing.encode(), EXTENSIONS) == NOT_FOUND
    assert "missing.so" in lib.OnnxLightLastErrorMessage().decode()
    assert register(None, missing.encode(), EXTENSIONS) == INVALID_ARGUMENT
    assert register(opts, None, EXTENSIONS) == INVALID_ARGUMENT
    lib.OnnxLightSessionOptionsRelease(opts)
    print("refused")


def test_refusals(ext_library, tmp_path):
    assert "refused" in _in_child("c_refusals", ext_library, str(tmp_path / "missing.so"))
