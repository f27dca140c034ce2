"""What the C ABI (libonnx_light.so, loaded with ctypes as a C caller would) refuses at
session creation: string tensors, which have no raw-buffer form there (found while
writing tests/fuzz/c_api_fuzzer.cc: a string input was read as raw std::string memory).
The per-input checks (element_count against the shape, null and misaligned pointers)
are in tests/cpp/runtime/c_api_test.cc."""

from __future__ import annotations

import ctypes

import pytest
from _c_abi import load_library

from onnx_light.onnx import TensorProto, helper

S, F = TensorProto.STRING, TensorProto.FLOAT


@pytest.fixture(scope="module")
def lib():
    return load_library()


def create(lib, string_input=False, string_output=False):
    nodes = [helper.make_node("Identity", ["x"], ["y"])]
    outputs = [helper.make_tensor_value_info("y", S if string_input else F, [2])]
    if string_output:  # a constant string output next to a float one
        value = helper.make_tensor("v", S, [1], [b"text"])
        nodes.append(helper.make_node("Constant", [], ["s"], value=value))
        outputs.append(helper.make_tensor_value_info("s", S, [1]))
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", S if string_input else F, [2])], outputs
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    handle = ctypes.c_void_p()
    rc = lib.OnnxLightSessionCreate(data, ctypes.c_size_t(len(data)), ctypes.byref(handle))
    return rc, lib.OnnxLightLastErrorMessage().decode(), handle


@pytest.mark.parametrize("string_input,string_output", [(True, False), (False, True)])
def test_string_inputs_and_outputs_are_refused(lib, string_input, string_output):
    rc, message, handle = create(lib, string_input, string_output)
    assert rc == 5 and not handle  # NOT_IMPLEMENTED
    assert "is a string tensor: the C ABI passes numeric and bool tensors only" in message
    rc, message, handle = create(lib)  # the library is still usable
    assert rc == 0, message
    lib.OnnxLightSessionRelease(handle)
