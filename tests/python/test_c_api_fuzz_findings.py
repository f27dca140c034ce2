"""Regression tests for what tests/fuzz/c_api_fuzzer.cc found (docs/robustness.md), each a
crash or undefined behaviour before the fix and now a defined result or a clear error,
with the process (and the session) usable afterwards:

- a bool input whose bytes are not 0 or 1 (a C caller's buffer, a numpy view of other
  bytes) was read as bool by the kernels (UBSan: `load of value 58 ... for type bool` in
  If); feeds are now checked, and bools stored in a model are read as numpy reads them;
- a Transpose whose perm is no permutation (a repeated or out-of-range axis) was composed
  with its neighbour by the transpose-sinking pass, reading past the perm (ASan:
  heap-use-after-free in Sinker::Composed)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from _c_abi import Tensor, load_library
from _graphs import node_model

import onnx_light
from onnx_light.onnx import TensorProto, helper

B, F, I32 = TensorProto.BOOL, TensorProto.FLOAT, TensorProto.INT32


@pytest.fixture(scope="module")
def lib():
    return load_library()


def c_run(lib, handle, x: np.ndarray):
    shape = (ctypes.c_int64 * 1)(x.size)
    feed = Tensor(b"x", x.ctypes.data, B, x.size, 1, shape, None)
    out = Tensor()
    rc = lib.OnnxLightRun(handle, ctypes.byref(feed), 1, ctypes.byref(out))
    if rc != 0:
        return rc, lib.OnnxLightLastErrorMessage().decode()
    y = np.ctypeslib.as_array(ctypes.cast(out.data, ctypes.POINTER(ctypes.c_uint8)), (x.size,))
    y = y.copy()
    lib.OnnxLightTensorRelease(ctypes.byref(out))
    return rc, y


def test_c_abi_refuses_bool_bytes_other_than_0_and_1(lib):
    data = node_model("Not", [("x", B)], [("y", B)]).SerializeToString()
    handle = ctypes.c_void_p()
    assert lib.OnnxLightSessionCreate(data, ctypes.c_size_t(len(data)), ctypes.byref(handle)) == 0
    try:
        rc, message = c_run(lib, handle, np.array([1, 58, 0], np.uint8))
        assert rc == 1  # INVALID_ARGUMENT
        assert message == "input 'x': bool element 1 is the byte 58; a bool must be 0 or 1"
        rc, y = c_run(lib, handle, np.array([1, 0, 0, 1], np.uint8))  # the session still runs
        assert rc == 0 and y.tolist() == [0, 1, 1, 0]
    finally:
        lib.OnnxLightSessionRelease(handle)


def test_python_refuses_a_bool_view_of_other_bytes():
    s = onnx_light.RuntimeSession(node_model("Not", [("x", B)], [("y", B)]))
    bad = np.array([0, 1, 255], np.uint8).view(np.bool_)
    with pytest.raises(ValueError, match="bool element 2 is the byte 255; a bool must be 0 or 1"):
        s.run(None, {"x": bad})
    np.testing.assert_array_equal(s.run(None, {"x": np.array([True, False])})[0], [False, True])


def test_bool_if_condition_from_a_c_caller_is_checked(lib):
    # The fuzzer's case: If reading its condition byte.
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["t"], value_float=1.0)],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, [])],
    )
    else_g = helper.make_graph(
        [helper.make_node("Constant", [], ["e"], value_float=2.0)],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, [])],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["x"], ["y"], then_branch=then_g, else_branch=else_g)],
        "g",
        [helper.make_tensor_value_info("x", B, [1])],
        [helper.make_tensor_value_info("y", F, [])],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    handle = ctypes.c_void_p()
    assert lib.OnnxLightSessionCreate(data, ctypes.c_size_t(len(data)), ctypes.byref(handle)) == 0
    try:
        rc, message = c_run(lib, handle, np.array([58], np.uint8))
        assert rc == 1 and "is the byte 58" in message
    finally:
        lib.OnnxLightSessionRelease(handle)


@pytest.mark.parametrize("raw", [True, False])
def test_stored_bools_are_read_as_numpy_reads_them(raw):
    # raw_data bytes 0, 2, 255, 1 or int32_data 0, 5, -1, 1: any nonzero is true, stored as 1.
    if raw:
        value = helper.make_tensor("v", B, [4], bytes([0, 2, 255, 1]), raw=True)
    else:
        value = helper.make_tensor("v", B, [4], [0, 5, -1, 1])
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["c"], value=value),
            helper.make_node("Cast", ["c"], ["y"], to=I32),
            helper.make_node("Not", ["c"], ["n"]),
        ],
        "g",
        [],
        [helper.make_tensor_value_info("y", I32, [4]), helper.make_tensor_value_info("n", B, [4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    for level in (
        onnx_light.GraphOptimizationLevel.ORT_DISABLE_ALL,
        onnx_light.GraphOptimizationLevel.ORT_ENABLE_ALL,
    ):
        so = onnx_light.SessionOptions()
        so.graph_optimization_level = level
        y, n = onnx_light.InferenceSession(model.SerializeToString(), so).run(None, {})
        assert y.tolist() == [0, 1, 1, 1]
        assert n.view(np.uint8).tolist() == [1, 0, 0, 0]


@pytest.mark.parametrize("perm", [[1, 1], [0, 5], [-1, 0]])
def test_a_transpose_perm_that_is_no_permutation_is_not_sunk(perm):
    # Transpose(x, [1, 0]) then Transpose(., perm): the pass composed both perms, reading
    # a[perm[i]] past the end of a. Now the bad Transpose stays for its kernel to refuse.
    graph = helper.make_graph(
        [
            helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
            helper.make_node("Transpose", ["t"], ["y"], perm=perm),
        ],
        "g",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(ValueError, match="perm"):
        onnx_light.RuntimeSession(model).run(None, {"x": np.zeros((2, 3), np.float32)})
    # Two transposes that cancel still go, and the result is x.
    good = helper.make_graph(
        [
            helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
            helper.make_node("Transpose", ["t"], ["y"], perm=[1, 0]),
        ],
        "g",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, None)],
    )
    s = onnx_light.RuntimeSession(
        helper.make_model(good, opset_imports=[helper.make_opsetid("", 18)])
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(s.run(None, {"x": x})[0], x)
