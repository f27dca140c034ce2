"""Session options through the C ABI (libonnx_light.so, loaded with ctypes as a C caller
would): the memory budget, the per-tensor cap and the thread count, each checked by a run
that meets it, and every setter's refusals. Before these a C caller had no way to bound
what a model may allocate (the C ABI fuzzer: a few hundred bytes of model made 4 GB)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from _c_abi import Tensor, load_library

from onnx_light.onnx import TensorProto, helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64
OK, INVALID_ARGUMENT, OUT_OF_RANGE, RESOURCE_EXHAUSTED = 0, 1, 3, 8


@pytest.fixture(scope="module")
def lib():
    return load_library()


def message(lib) -> str:
    return lib.OnnxLightLastErrorMessage().decode()


def options(lib, budget=None, max_bytes=None, threads=None):
    handle = ctypes.c_void_p()
    assert lib.OnnxLightSessionOptionsCreate(ctypes.byref(handle)) == OK
    if budget is not None:
        assert lib.OnnxLightSessionOptionsSetMemoryBudget(handle, budget) == OK
    if max_bytes is not None:
        assert lib.OnnxLightSessionOptionsSetMaxTensorBytes(handle, max_bytes) == OK
    if threads is not None:
        assert lib.OnnxLightSessionOptionsSetIntraOpThreads(handle, threads) == OK
    return handle


def fill_model() -> bytes:
    """y = ConstantOfShape(shape) + 1 (ConstantOfShape's value 1): the shape comes from a feed."""
    graph = helper.make_graph(
        [
            helper.make_node(
                "ConstantOfShape", ["s"], ["c"], value=helper.make_tensor("v", F, [1], [1.0])
            ),
            helper.make_node("Add", ["c", "c"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("s", I64, [2])],
        [helper.make_tensor_value_info("y", F, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def create(lib, opts, data=None):
    data = fill_model() if data is None else data
    session = ctypes.c_void_p()
    rc = lib.OnnxLightSessionCreateWithOptions(data, len(data), opts, ctypes.byref(session))
    return rc, session


def run(lib, session, rows, cols):
    dims = np.array([rows, cols], np.int64)
    shape = (ctypes.c_int64 * 1)(2)
    feed = Tensor(b"s", dims.ctypes.data, I64, 2, 1, shape, None)
    out = Tensor()
    rc = lib.OnnxLightRun(session, ctypes.byref(feed), 1, ctypes.byref(out))
    result = None
    if rc == OK:
        n = out.element_count
        result = np.ctypeslib.as_array(ctypes.cast(out.data, ctypes.POINTER(ctypes.c_float)), (n,))
        result = result.copy().reshape([out.shape[i] for i in range(out.rank)])
        lib.OnnxLightTensorRelease(ctypes.byref(out))
    return rc, result


def test_a_memory_budget_fails_the_run_before_it_allocates(lib):
    opts = options(lib, budget=1 << 20)  # 1 MiB
    rc, session = create(lib, opts)
    assert rc == OK, message(lib)
    # 1024 x 1024 floats = 4 MiB for ConstantOfShape alone.
    rc, _ = run(lib, session, 1024, 1024)
    assert rc == RESOURCE_EXHAUSTED
    assert "needs 4194304 bytes" in message(lib) and "memory budget is 1048576" in message(lib)
    # Two 64 KiB tensors fit, in the same session.
    rc, y = run(lib, session, 128, 128)
    assert rc == OK, message(lib)
    np.testing.assert_array_equal(y, np.full((128, 128), 2, np.float32))
    lib.OnnxLightSessionRelease(session)
    lib.OnnxLightSessionOptionsRelease(opts)


def test_max_tensor_bytes_caps_every_tensor(lib):
    opts = options(lib, max_bytes=4096)
    rc, session = create(lib, opts)
    assert rc == OK, message(lib)
    rc, _ = run(lib, session, 32, 33)  # 4,224 bytes
    assert rc == OUT_OF_RANGE and "over the limit of 4096" in message(lib)
    rc, y = run(lib, session, 32, 32)  # 4,096 bytes: at the cap
    assert rc == OK and y.shape == (32, 32)
    lib.OnnxLightSessionRelease(session)
    lib.OnnxLightSessionOptionsRelease(opts)


@pytest.mark.parametrize("threads", [0, 2])
def test_intra_op_threads_give_the_same_answer(lib, threads):
    opts = options(lib, threads=threads)
    rc, session = create(lib, opts)
    assert rc == OK, message(lib)
    rc, y = run(lib, session, 300, 70)
    assert rc == OK
    np.testing.assert_array_equal(y, np.full((300, 70), 2, np.float32))
    lib.OnnxLightSessionRelease(session)
    lib.OnnxLightSessionOptionsRelease(opts)


def test_one_options_object_serves_a_file_and_bytes_and_null_means_defaults(lib, tmp_path):
    opts = options(lib, budget=1 << 20)
    path = tmp_path / "fill.onnx"
    path.write_bytes(fill_model())
    session = ctypes.c_void_p()
    assert (
        lib.OnnxLightSessionCreateFromFileWithOptions(
            str(path).encode(), opts, ctypes.byref(session)
        )
        == OK
    ), message(lib)
    assert run(lib, session, 1024, 1024)[0] == RESOURCE_EXHAUSTED  # the budget holds
    lib.OnnxLightSessionRelease(session)
    rc, session = create(lib, None)  # null options: the defaults, no budget
    assert rc == OK
    assert run(lib, session, 1024, 1024)[0] == OK
    lib.OnnxLightSessionRelease(session)
    lib.OnnxLightSessionOptionsRelease(opts)


def test_refusals(lib):
    assert lib.OnnxLightSessionOptionsCreate(None) == INVALID_ARGUMENT
    assert lib.OnnxLightSessionOptionsSetMemoryBudget(None, 1) == INVALID_ARGUMENT
    assert lib.OnnxLightSessionOptionsSetMaxTensorBytes(None, 1) == INVALID_ARGUMENT
    assert lib.OnnxLightSessionOptionsSetIntraOpThreads(None, 1) == INVALID_ARGUMENT
    opts = options(lib, max_bytes=4096, threads=2)
    assert lib.OnnxLightSessionOptionsSetMaxTensorBytes(opts, 0) == INVALID_ARGUMENT
    assert "at least 1" in message(lib)
    for threads in (-1, 1025):
        assert lib.OnnxLightSessionOptionsSetIntraOpThreads(opts, threads) == INVALID_ARGUMENT
        assert f"got {threads}" in message(lib)
    # A refused setter leaves the option as it was: 4096 bytes and two threads.
    rc, session = create(lib, opts)
    assert rc == OK
    assert run(lib, session, 32, 33)[0] == OUT_OF_RANGE
    assert run(lib, session, 32, 32)[0] == OK
    lib.OnnxLightSessionRelease(session)
    session = ctypes.c_void_p()
    assert lib.OnnxLightSessionCreateWithOptions(None, 4, opts, ctypes.byref(session)) == 1
    assert lib.OnnxLightSessionCreateFromFileWithOptions(None, opts, ctypes.byref(session)) == 1
    assert lib.OnnxLightSessionCreateWithOptions(b"\x3a\xff", 2, opts, None) == 1
    lib.OnnxLightSessionOptionsRelease(opts)
    lib.OnnxLightSessionOptionsRelease(None)  # null is ignored
